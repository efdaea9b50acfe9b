// Package policy holds the domain of TrustScreen Reviewer: the error codes of
// the screening contract and what each means for a reviewer, the validation of
// items received from the service, the next action on an item, and the time
// budget of every network attempt.
//
// It is pure: standard library only, no I/O, no clock of its own (callers pass
// "now"). Every other package may import it; it imports none of them. That is
// what keeps "which codes a person may re-submit" (here) apart from "which
// failures the machine may retry" (package client, which never asks policy).
package policy

import (
	"errors"
	"fmt"
)

// Error is the console's error: a stable machine code and one sentence for a
// person. Lower layers wrap their failures in it so that the command line and
// the window can both say what happened and what to do next.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the Code of the first *Error in err's chain, or
// INTERNAL_ERROR for any other non-nil error, or "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var c interface{ ConsoleCode() Code }
	if errors.As(err, &c) {
		return c.ConsoleCode()
	}
	return CodeInternal
}

// ErrorMessage returns the human sentence of err without its code prefix.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return err.Error()
}
