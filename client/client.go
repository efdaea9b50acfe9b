// Package client is the console's one way to the screening API: a single
// go-resty client that retries by itself once, and only when no byte of the
// request was written; that turns every call into exactly one outcome class;
// that gives each attempt what is left of its operation's budget; that keeps
// the evidence of every attempt; and that stops calling for a while when the
// API stops answering (a circuit breaker).
//
// It knows HTTP, not SQL and not Fyne. It never asks policy whether a person
// may re-submit an item: machine retries and human retries stay apart.
package client

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/sony/gobreaker/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Client calls the screening API.
type Client struct {
	cfg   Config
	rc    *resty.Client
	wire  *wire
	cb    atomic.Pointer[gobreaker.CircuitBreaker[struct{}]] // swapped for a closed one when a probe is answered (Probe)
	cbSet gobreaker.Settings
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu       sync.Mutex
	openedAt time.Time
}

// Option changes how a Client is built; tests use them.
type Option func(*options)

type options struct {
	dial  DialFunc
	tls   *tls.Config
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// WithDialer replaces the TCP dialer.
func WithDialer(d DialFunc) Option { return func(o *options) { o.dial = d } }

// WithRootCAs trusts these roots instead of the system's. Certificates are
// always verified: there is no option to turn that off.
func WithRootCAs(tc *tls.Config) Option { return func(o *options) { o.tls = tc } }

// WithSleep replaces the wait before the retry.
func WithSleep(s func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) { o.sleep = s }
}

func realSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// New builds a Client. It refuses plain http:// to a host that is not
// loopback unless AllowInsecureHTTP is set.
func New(cfg Config, opts ...Option) (*Client, error) {
	if err := checkURL(cfg.BaseURL, cfg.AllowInsecureHTTP); err != nil {
		return nil, err
	}
	o := options{now: time.Now, sleep: realSleep}
	for _, opt := range opts {
		opt(&o)
	}
	if o.dial == nil {
		o.dial = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext
	}
	if o.tls == nil {
		o.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if cfg.RetryAttempts < 1 {
		cfg.RetryAttempts = 1
	}
	c := &Client{cfg: cfg, now: o.now, sleep: o.sleep}
	c.wire = newWire(o.dial, o.tls, o.now, cfg.MaxBody)
	c.cbSet = gobreaker.Settings{
		Name:        "screening-api",
		MaxRequests: 1, // a single probe when half-open
		Timeout:     cfg.CircuitOpen,
		ReadyToTrip: func(n gobreaker.Counts) bool { return n.ConsecutiveFailures >= uint32(cfg.CircuitFailures) },
		IsSuccessful: func(err error) bool {
			e, ok := AsError(err)
			return !ok || (e.Class != ClassNotConnected && e.Class != ClassUnknown)
		},
		IsExcluded: func(err error) bool {
			e, ok := AsError(err)
			return ok && e.Class == ClassNotStarted
		},
		OnStateChange: func(_ string, _, to gobreaker.State) {
			c.mu.Lock()
			if to == gobreaker.StateOpen {
				c.openedAt = c.now()
			}
			c.mu.Unlock()
		},
	}
	c.cb.Store(gobreaker.NewCircuitBreaker[struct{}](c.cbSet))

	rc := resty.New().
		SetTransport(c.wire).
		SetBaseURL(strings.TrimRight(cfg.BaseURL, "/")).
		SetRedirectPolicy(resty.NoRedirectPolicy()).
		SetLogger(quietLogger{}).
		SetResponseBodyLimit(cfg.MaxBody).
		SetHeader("Accept", "application/json").
		SetHeader("User-Agent", "trustscreen-reviewer/1").
		// resty drives the retry; the wait itself is done in the retry
		// hook so that it can be checked against the budget and injected
		// in tests. resty's own wait is set to (almost) nothing.
		SetRetryCount(cfg.RetryAttempts - 1).
		SetRetryWaitTime(0).
		SetRetryMaxWaitTime(0).
		SetRetryResetReaders(true). // a retried upload sends the whole file again
		AddRetryCondition(c.retryCondition).
		AddRetryHook(c.retryHook)
	if tok := cfg.Token.Reveal(); tok != "" {
		rc.SetAuthToken(tok)
	}
	c.rc = rc
	return c, nil
}

// Close releases idle connections.
func (c *Client) Close() { c.wire.closeIdle() }

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

func checkURL(raw string, allowInsecure bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_API_URL %q is not an absolute URL", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if allowInsecure || isLoopback(u.Hostname()) {
			return nil
		}
		return policy.Errorf(policy.CodeInvalidInput,
			"refusing plain http to %s: the token and customer documents would cross the network unencrypted; use https, or set REVIEWER_ALLOW_INSECURE_HTTP=1", u.Hostname())
	}
	return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_API_URL %q: the scheme must be https (or http on loopback)", raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Health is what the console knows of the API's reachability.
type Health struct {
	CircuitOpen bool
	HalfOpen    bool
	RetryAt     time.Time // when the open circuit lets a probe through
}

// Health reports the circuit's state.
func (c *Client) Health() Health {
	st := c.cb.Load().State()
	c.mu.Lock()
	defer c.mu.Unlock()
	h := Health{CircuitOpen: st == gobreaker.StateOpen, HalfOpen: st == gobreaker.StateHalfOpen}
	if h.CircuitOpen {
		h.RetryAt = c.openedAt.Add(c.cfg.CircuitOpen)
	}
	return h
}

// request describes one API call.
type request struct {
	method string
	path   string
	key    string // Idempotency-Key, required for POST
	match  int64  // If-Match revision; 0 sends none, replayOnly sends "0"
	setup  func(*resty.Request)
	out    any  // decoded on 2xx
	probe  bool // Probe: past the breaker, and an answer closes it
	// maxBody, when set, replaces REVIEWER_MAX_BODY for this call's
	// answer (a document may have 10 MiB).
	maxBody int
}

// bodyDecoder is an out that decodes the body itself (a page of batches:
// batches.go); its error means the body is not JSON.
type bodyDecoder interface{ decodeBody(body []byte) error }

// answerDecoder is an out that takes the raw answer, headers and bytes (a
// document: files.go); its error says why the answer is refused.
type answerDecoder interface {
	decodeAnswer(resp *resty.Response) error
}

// serviceAnswered reports whether a call's outcome is the service's own
// answer (yes, no, or slow down), not a failure to reach it.
func serviceAnswered(err error) bool {
	if err == nil {
		return true
	}
	e, ok := AsError(err)
	return ok && (e.Class == ClassAnsweredNo || e.Class == ClassRateLimited)
}

// do runs one call: the circuit breaker around resty's attempts. It always
// returns the evidence of every attempt made.
func (c *Client) do(ctx context.Context, r request) ([]policy.Attempt, error) {
	if r.method == "POST" && r.key == "" {
		return nil, &Error{Code: policy.CodeInvalidInput, Class: ClassNotStarted, Message: "a POST needs the Idempotency-Key its caller stored"}
	}
	if e := checkItemPath(r.path); e != nil {
		e.Message = redact(e.Message, c.cfg.Token)
		return nil, e
	}
	start := c.now()
	cl := &call{start: start, budget: c.cfg.Budget(), maxBody: int64(r.maxBody)}
	if d, ok := ctx.Deadline(); ok {
		cl.deadline = d
	} else {
		cl.deadline = cl.budget.Deadline(start)
	}
	var callErr error
	var err error
	if r.probe {
		// A probe goes past the breaker: it is the one cheap call that
		// asks whether the API answers, and an answer ends the pause.
		err = c.exec(ctx, cl, r)
		callErr = err
		if cb := c.cb.Load(); serviceAnswered(err) && cb.State() != gobreaker.StateClosed {
			c.cb.CompareAndSwap(cb, gobreaker.NewCircuitBreaker[struct{}](c.cbSet))
		}
	} else {
		_, err = c.cb.Load().Execute(func() (struct{}, error) {
			callErr = c.exec(ctx, cl, r)
			return struct{}{}, callErr
		})
	}
	attempts := cl.evidence()
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		h := c.Health()
		e := &Error{Code: policy.CodeCircuitOpen, Class: ClassNotStarted,
			Message: "the screening API stopped answering; calls are paused"}
		if !h.RetryAt.IsZero() {
			e.Message += " until " + h.RetryAt.Local().Format("15:04:05")
			e.RetryAfter = h.RetryAt
		}
		return attempts, e
	}
	if err != nil {
		if e, ok := AsError(err); ok {
			e.Attempts = attempts
			e.Message = redact(e.Message, c.cfg.Token)
			return attempts, e
		}
		return attempts, &Error{Code: policy.CodeInternal, Class: ClassNotStarted, Message: redact(err.Error(), c.cfg.Token), Attempts: attempts}
	}
	return attempts, nil
}

func (c *Client) exec(ctx context.Context, cl *call, r request) error {
	req := c.rc.R().SetContext(context.WithValue(ctx, callKey, cl))
	if r.key != "" {
		req.SetHeader("Idempotency-Key", r.key)
	}
	switch {
	case r.match > 0:
		req.SetHeader("If-Match", ifMatchValue(r.match))
	case r.match == replayOnly:
		req.SetHeader("If-Match", ifMatchValue(0))
	}
	if r.setup != nil {
		r.setup(req)
	}
	if r.maxBody > 0 {
		req.SetResponseBodyLimit(r.maxBody)
	}
	resp, err := req.Execute(r.method, r.path)
	a, cerr := c.finish(cl, resp, err)
	if cerr != nil {
		if _, ok := r.out.(answerDecoder); ok && resp != nil && resp.RawResponse != nil && resp.IsSuccess() {
			if d := fileAnswerError(err); d != nil {
				// The answer came and is bad (too large, or cut short):
				// not an unknown outcome, and never partial bytes.
				a.mu.Lock()
				a.rec.Class, a.rec.Code, a.rec.Detail = ClassBadAnswer, policy.CodeInvalidResponse, d.Error()
				a.mu.Unlock()
				return &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: resp.StatusCode(), Message: d.Error(), Err: d}
			}
		}
		return cerr
	}
	if d, ok := r.out.(answerDecoder); ok {
		if derr := d.decodeAnswer(resp); derr != nil {
			a.mu.Lock()
			a.rec.Class, a.rec.Code, a.rec.Detail = ClassBadAnswer, policy.CodeInvalidResponse, derr.Error()
			a.mu.Unlock()
			return &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: resp.StatusCode(), Message: derr.Error(), Err: derr}
		}
		return nil
	}
	if r.out != nil {
		decode := func(body []byte) error { return json.Unmarshal(body, r.out) }
		if d, ok := r.out.(bodyDecoder); ok {
			decode = d.decodeBody
		}
		if jerr := decode(resp.Body()); jerr != nil {
			a.rec.Class, a.rec.Code, a.rec.Detail = ClassBadAnswer, policy.CodeInvalidResponse, "malformed JSON"
			return &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: resp.StatusCode(),
				Message: "the answer is not the JSON the contract promises: " + jerr.Error()}
		}
		// Every string of the answer, before anyone else sees it
		// (redact.go): a service that echoes the token must not get
		// it into the cache, an export, a log or the screen.
		redactValue(r.out, c.cfg.Token)
	}
	return nil
}

// finish classifies the last attempt once, whether resty asks (through the
// retry condition) or not (no retries configured, or a cancelled context).
func (c *Client) finish(cl *call, resp *resty.Response, err error) (*attemptState, *Error) {
	a := cl.last()
	if a == nil { // the request never reached the transport
		e := &Error{Code: policy.CodeInvalidInput, Class: ClassNotStarted, Message: "the request could not be built"}
		if err != nil {
			e.Message += ": " + err.Error()
		}
		return nil, e
	}
	var parentErr error
	if resp != nil && resp.Request != nil {
		parentErr = resp.Request.Context().Err()
	}
	class, e := classify(resp, err, a.wrote(), parentErr, c.now())
	if class == ClassBadAnswer && errors.Is(err, resty.ErrResponseBodyTooLarge) && cl.maxBody == 0 {
		// Name the setting, so that whoever reads it knows what to raise.
		e.Message = fmt.Sprintf("%s: over REVIEWER_MAX_BODY (%d bytes)", e.Message, c.cfg.MaxBody)
	}
	if e != nil {
		// A refusal's message, its codes and the item it carried
		// (a 412's, a 409's) are strings from the service too.
		redactValue(e, c.cfg.Token)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		a.closed = true
		a.rec.Elapsed = c.now().Sub(a.rec.Start)
		a.rec.Class = class
		if e != nil {
			a.rec.Code, a.rec.HTTPStatus = e.Code, e.HTTPStatus
			a.rec.Detail = redact(e.Message, c.cfg.Token)
		} else if resp != nil {
			a.rec.HTTPStatus = resp.StatusCode()
		}
	}
	return a, e
}

func (c *Client) retryCondition(resp *resty.Response, err error) bool {
	if resp == nil || resp.Request == nil {
		return false
	}
	cl, _ := resp.Request.Context().Value(callKey).(*call)
	if cl == nil {
		return false
	}
	a, e := c.finish(cl, resp, err)
	if a == nil || e == nil {
		return false
	}
	_, budgetLeft := cl.budget.Attempt(c.now().Add(c.cfg.RetrySleep), cl.deadline)
	return shouldRetry(e.Class, len(cl.evidence()), c.cfg.RetryAttempts, resp.Request.Context().Err(), budgetLeft)
}

func (c *Client) retryHook(resp *resty.Response, _ error) {
	if resp == nil || resp.Request == nil {
		return
	}
	// A cancelled wait shows as the next attempt's cancelled context.
	_ = c.sleep(resp.Request.Context(), c.cfg.RetrySleep)
}

func (cl *call) evidence() []policy.Attempt {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	out := make([]policy.Attempt, len(cl.attempts))
	for i, a := range cl.attempts {
		a.mu.Lock()
		out[i] = a.rec
		if !a.closed && out[i].Class == "" {
			out[i].Class = ClassNotStarted
			out[i].Code = policy.CodeDeadlineExceeded
		}
		a.mu.Unlock()
	}
	return out
}

// quietLogger drops resty's own log lines: they would print request errors
// outside of the console's control. Outcomes are reported through Error.
type quietLogger struct{}

func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Warnf(string, ...any)  {}
func (quietLogger) Debugf(string, ...any) {}
