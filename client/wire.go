package client

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/trustscreen/reviewer/policy"
)

// The wire: a real net/http Transport wrapped so that every attempt
//   - gets its own timeouts from the operation's budget (no budget, no call),
//   - is traced on the wire: which connections it used and how many bytes of
//     the request were written to them, which is how "was anything sent?" is
//     decided, never by reading error strings.
//
// net/http's Transport replays a request by itself on a reused keep-alive
// connection that failed (shouldRetryRequest), and it counts a POST with an
// Idempotency-Key as replayable. To keep the service from seeing more than the
// one retry we allow, requests other than GET go through a transport without
// keep-alives: a fresh connection is never "reused", so never replayed.

type ctxKey int

const (
	callKey ctxKey = iota
	attemptKey
)

// call is the state of one operation across its attempts.
type call struct {
	start    time.Time
	deadline time.Time
	budget   policy.Budget
	maxBody  int64 // this call's limit on an answer's body; 0: the client's

	mu       sync.Mutex
	attempts []*attemptState
}

func (c *call) last() *attemptState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.attempts) == 0 {
		return nil
	}
	return c.attempts[len(c.attempts)-1]
}

func (c *call) add(a *attemptState) {
	c.mu.Lock()
	a.rec.Number = len(c.attempts) + 1
	c.attempts = append(c.attempts, a)
	c.mu.Unlock()
}

// attemptState is one attempt as the wire saw it.
type attemptState struct {
	rec   policy.Attempt
	alloc policy.Allocation

	mu     sync.Mutex
	conns  []connMark
	closed bool // classified
}

type connMark struct {
	conn  *countingConn
	start int64
}

func (a *attemptState) gotConn(info httptrace.GotConnInfo) {
	cc, ok := info.Conn.(*countingConn)
	if !ok {
		return
	}
	a.mu.Lock()
	a.conns = append(a.conns, connMark{conn: cc, start: cc.written.Load()})
	a.mu.Unlock()
}

// wrote reports whether any byte of the request may have been written to a
// connection: written, or handed to a Write that has not returned yet (the
// answer to a request can arrive before its writer goroutine runs again).
func (a *attemptState) wrote() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.conns {
		if m.conn.written.Load() > m.start || m.conn.inflight.Load() > 0 {
			return true
		}
	}
	return false
}

// countingConn counts the application bytes written to a connection (after
// the TLS handshake, for TLS), and the bytes of a Write still in progress.
type countingConn struct {
	net.Conn
	written  atomic.Int64
	inflight atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.inflight.Add(int64(len(p)))
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n)) // before inflight drops, so the bytes are never uncounted
	c.inflight.Add(-int64(len(p)))
	return n, err
}

// DialFunc opens a TCP connection.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

type wire struct {
	keepAlive *http.Transport
	fresh     *http.Transport
	dial      DialFunc
	tls       *tls.Config
	now       func() time.Time
	maxBody   int64 // an answer that announces more is refused unread
}

func newWire(dial DialFunc, tlsConf *tls.Config, now func() time.Time, maxBody int) *wire {
	w := &wire{dial: dial, tls: tlsConf, now: now, maxBody: int64(maxBody)}
	mk := func(keepAlive bool) *http.Transport {
		return &http.Transport{
			Proxy:               nil, // never route through an environment proxy
			DialContext:         w.dialPlain,
			DialTLSContext:      w.dialTLS,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
			DisableKeepAlives:   !keepAlive,
			DisableCompression:  true,
		}
	}
	w.keepAlive, w.fresh = mk(true), mk(false)
	return w
}

func (w *wire) connectCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if a, ok := ctx.Value(attemptKey).(*attemptState); ok && a.alloc.Connect > 0 {
		return context.WithTimeout(ctx, a.alloc.Connect)
	}
	return context.WithCancel(ctx)
}

func (w *wire) dialPlain(ctx context.Context, network, addr string) (net.Conn, error) {
	cctx, cancel := w.connectCtx(ctx)
	defer cancel()
	c, err := w.dial(cctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c}, nil
}

// dialTLS opens the connection and completes the handshake inside the
// connect timeout, and counts only what is written after it.
func (w *wire) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	cctx, cancel := w.connectCtx(ctx)
	defer cancel()
	raw, err := w.dial(cctx, network, addr)
	if err != nil {
		return nil, err
	}
	conf := w.tls.Clone()
	if conf.ServerName == "" {
		host, _, _ := net.SplitHostPort(addr)
		conf.ServerName = host
	}
	tc := tls.Client(raw, conf)
	if err := tc.HandshakeContext(cctx); err != nil {
		raw.Close()
		return nil, err
	}
	return &countingConn{Conn: tc}, nil
}

// RoundTrip runs one attempt within its share of the operation's budget.
func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	c, _ := req.Context().Value(callKey).(*call)
	if c == nil {
		c = &call{start: w.now(), budget: policy.DefaultBudget()}
		c.deadline = c.budget.Deadline(c.start)
	}
	now := w.now()
	a := &attemptState{rec: policy.Attempt{Start: now, Deadline: c.deadline, SpentBefore: now.Sub(c.start)}}
	c.add(a)
	alloc, ok := c.budget.Attempt(now, c.deadline)
	if !ok {
		return nil, errNotStarted{reason: "no time left in the operation's budget; the call was not started"}
	}
	a.alloc = alloc
	a.rec.ConnectTimeout, a.rec.RequestTimeout = alloc.Connect, alloc.Request

	ctx, cancel := context.WithTimeout(req.Context(), alloc.Request)
	ctx = context.WithValue(ctx, attemptKey, a)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: a.gotConn})
	t := w.fresh
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		t = w.keepAlive
	}
	resp, err := t.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	body := io.ReadCloser(&cancelOnClose{ReadCloser: resp.Body, cancel: cancel})
	limit := w.maxBody
	if c.maxBody > 0 {
		limit = c.maxBody
	}
	if limit > 0 && resp.ContentLength > limit {
		// The answer says at once that it is too large: refuse it without
		// reading megabytes first. It is still an answer (a bad one).
		body = tooLarge{body}
	}
	resp.Body = body
	return resp, nil
}

// tooLarge stands for a body whose announced length is over the limit: it
// reads as resty's own over-the-limit error, so both paths classify alike.
type tooLarge struct{ io.ReadCloser }

func (tooLarge) Read([]byte) (int, error) { return 0, resty.ErrResponseBodyTooLarge }

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func (w *wire) closeIdle() {
	w.keepAlive.CloseIdleConnections()
	w.fresh.CloseIdleConnections()
}
