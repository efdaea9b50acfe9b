package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Class is the outcome class of one attempt or one call (policy's, so that
// the store keeps the same type); only the client assigns it.
type Class = policy.Class

// The classes, under the names the client's callers have always used.
const (
	ClassOK           = policy.ClassOK
	ClassNotConnected = policy.ClassNotConnected
	ClassUnknown      = policy.ClassUnknown
	ClassAnsweredNo   = policy.ClassAnsweredNo
	ClassRateLimited  = policy.ClassRateLimited
	ClassUntrusted    = policy.ClassUntrusted
	ClassBadAnswer    = policy.ClassBadAnswer
	ClassNotStarted   = policy.ClassNotStarted
)

// defaultRateLimitWait is the wait after a 429 that names none.
const defaultRateLimitWait = 30 * time.Second

// Error is a call that did not end in a valid answer.
type Error struct {
	Code         policy.Code // the console's code
	ReportedCode string      // the code the service reported, if any
	Message      string      // the service's message, or what happened
	HTTPStatus   int
	Class        Class
	RetryAfter   time.Time // when a rate limit ends (zero: none)
	Attempts     []policy.Attempt
	// Item is the item as the service holds it now, when the answer
	// carried one: 412 ITEM_CHANGED and 409 CLAIMED do (see conflicts.go).
	Item *policy.Item
	// Err is the cause of a call the console refused itself, if any
	// (ErrUnsafeID).
	Err error
}

// Unwrap returns the cause of a call the console refused itself.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.ReportedCode != "" && e.ReportedCode != string(e.Code) {
		fmt.Fprintf(&b, " (service: %s)", e.ReportedCode)
	}
	if e.HTTPStatus != 0 {
		fmt.Fprintf(&b, " [HTTP %d]", e.HTTPStatus)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// ConsoleCode lets policy.ErrorCode read the code.
func (e *Error) ConsoleCode() policy.Code { return e.Code }

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// shouldRetry is the machine's retry decision, and the only one: retry once
// more only when nothing of the request was written, the caller has not
// cancelled, attempts remain and the budget leaves time for another attempt
// after the wait. Everything else (an answer, an unknown outcome, an
// untrusted certificate, a bad answer, a cancelled context) is never retried.
func shouldRetry(class Class, attemptsMade, maxAttempts int, ctxErr error, budgetLeft bool) bool {
	if ctxErr != nil || attemptsMade >= maxAttempts || !budgetLeft {
		return false
	}
	return class == ClassNotConnected
}

// errNotStarted is returned by the transport when an attempt has no budget.
type errNotStarted struct{ reason string }

func (e errNotStarted) Error() string { return e.reason }

// serviceError is the body of the service's non-2xx answers.
type serviceError struct {
	ErrorCode    string          `json:"error_code"`
	ErrorMessage string          `json:"error_message"`
	Item         *policy.RawItem `json:"item"`
}

// classify turns what happened in one attempt into its outcome. wrote says
// whether any byte of the request reached a connection; parentErr is the
// caller's context error.
func classify(resp *resty.Response, err error, wrote bool, parentErr error, now time.Time) (Class, *Error) {
	var ns errNotStarted
	if errors.As(err, &ns) {
		return ClassNotStarted, &Error{Code: policy.CodeDeadlineExceeded, Class: ClassNotStarted, Message: ns.reason}
	}
	status := 0
	if resp != nil && resp.RawResponse != nil {
		status = resp.StatusCode()
	}
	if err != nil {
		var certErr *tls.CertificateVerificationError
		var unknownAuth x509.UnknownAuthorityError
		var hostErr x509.HostnameError
		var invalid x509.CertificateInvalidError
		switch {
		case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalid):
			return ClassUntrusted, &Error{Code: policy.CodeTLSUntrusted, Class: ClassUntrusted,
				Message: "the server's TLS certificate failed verification: " + certReason(err)}
		case !wrote && parentErr != nil:
			return ClassNotStarted, &Error{Code: policy.CodeDeadlineExceeded, Class: ClassNotStarted,
				Message: "cancelled before anything was sent"}
		case !wrote:
			return ClassNotConnected, &Error{Code: policy.CodeAPIUnreachable, Class: ClassNotConnected,
				Message: "no connection to the screening API: " + netReason(err)}
		case errors.Is(err, resty.ErrResponseBodyTooLarge) && status >= 200 && status < 300:
			return ClassBadAnswer, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: status,
				Message: "the answer was larger than the console reads"}
		default:
			return ClassUnknown, &Error{Code: policy.CodeOutcomeUnknown, Class: ClassUnknown, HTTPStatus: status,
				Message: "the request was sent but no complete answer came back: " + netReason(err)}
		}
	}
	if status >= 200 && status < 300 {
		return ClassOK, nil
	}
	return answerError(status, resp.Header().Get("Retry-After"), resp.Body(), now)
}

// parseErrorBody reads the service's JSON error body; anything else (a
// proxy's HTML, a truncated body) gives an empty one.
func parseErrorBody(body []byte) serviceError {
	var e serviceError
	if json.Unmarshal(body, &e) != nil {
		return serviceError{}
	}
	return e
}

// answerError classifies an answer that is not a 2xx: its status, its
// Retry-After header and its body.
func answerError(status int, retryAfterHeader string, rawBody []byte, now time.Time) (Class, *Error) {
	body := parseErrorBody(rawBody)
	if status == http.StatusTooManyRequests {
		return ClassRateLimited, &Error{Code: policy.CodeRateLimited, ReportedCode: body.ErrorCode, Class: ClassRateLimited,
			HTTPStatus: status, Message: body.ErrorMessage, RetryAfter: retryAfter(retryAfterHeader, now, defaultRateLimitWait)}
	}
	if body.ErrorCode != "" {
		e := &Error{Code: policy.Code(body.ErrorCode), ReportedCode: body.ErrorCode, Class: ClassAnsweredNo,
			HTTPStatus: status, Message: body.ErrorMessage, Item: answeredItem(body.Item)}
		if status == http.StatusServiceUnavailable {
			e.RetryAfter = retryAfter(retryAfterHeader, now, 0)
		}
		return ClassAnsweredNo, e
	}
	if status >= 500 {
		// A proxy's 502/503/504, or a bare 5xx: the request may have been
		// carried out. Nobody knows, so it is reconciled, not repeated.
		return ClassUnknown, &Error{Code: policy.CodeOutcomeUnknown, Class: ClassUnknown, HTTPStatus: status,
			Message: fmt.Sprintf("HTTP %d without the service's error body", status)}
	}
	return ClassAnsweredNo, &Error{Code: statusCode(status), Class: ClassAnsweredNo, HTTPStatus: status,
		Message: fmt.Sprintf("HTTP %d without the service's error body", status)}
}

func statusCode(status int) policy.Code {
	switch status {
	case http.StatusUnauthorized:
		return policy.CodeUnauthenticated
	case http.StatusForbidden:
		return policy.CodeForbidden
	case http.StatusNotFound:
		return policy.CodeNotFound
	case http.StatusUnprocessableEntity, http.StatusBadRequest:
		return policy.CodeValidationFailed
	}
	return policy.CodeInvalidResponse
}

// maxRetryAfter bounds a wait the service asks for: a Retry-After of a
// billion seconds, or a date in the year 9999, would otherwise block
// re-submissions for ever.
const maxRetryAfter = time.Hour

// retryAfter parses a Retry-After header: seconds or an HTTP date. The
// result is never before now nor more than maxRetryAfter after it; a value
// it cannot read gives now+fallback (zero without a fallback).
func retryAfter(v string, now time.Time, fallback time.Duration) time.Time {
	v = strings.TrimSpace(v)
	var t time.Time
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		if secs > int64(maxRetryAfter/time.Second) {
			secs = int64(maxRetryAfter / time.Second)
		}
		t = now.Add(time.Duration(secs) * time.Second)
	} else if d, err := http.ParseTime(v); err == nil {
		t = d
	} else if fallback > 0 {
		t = now.Add(min(fallback, maxRetryAfter))
	} else {
		return time.Time{}
	}
	switch {
	case t.Before(now):
		return now
	case t.After(now.Add(maxRetryAfter)):
		return now.Add(maxRetryAfter)
	}
	return t
}

func certReason(err error) string {
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		err = certErr.Err
	}
	return err.Error()
}

// netReason names a network failure without repeating URLs or headers.
func netReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}
