package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

func mustClientErr(t *testing.T, err error, class client.Class, code policy.Code) *client.Error {
	t.Helper()
	e, ok := client.AsError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *client.Error", err, err)
	}
	if e.Class != class || e.Code != code {
		t.Fatalf("got %s/%s (%v), want %s/%s", e.Class, e.Code, e, class, code)
	}
	if policy.ErrorCode(err) != code {
		t.Fatalf("policy.ErrorCode = %s", policy.ErrorCode(err))
	}
	return e
}

func TestNotConnectedIsRetriedOnceAfterTheSleep(t *testing.T) {
	addr := closedPort(t)
	sl, dc := &sleeper{}, &dialCounter{}
	c, err := client.New(testConfig("http://"+addr), client.WithSleep(sl.sleep), client.WithDialer(dc.dial))
	if err != nil {
		t.Fatal(err)
	}
	_, attempts, err := c.Resubmit(context.Background(), "itm_0001_02", "key-1")
	e := mustClientErr(t, err, client.ClassNotConnected, policy.CodeAPIUnreachable)
	if len(attempts) != 2 || len(e.Attempts) != 2 {
		t.Fatalf("attempts = %d, want the first try and one retry", len(attempts))
	}
	if dc.count() != 2 {
		t.Fatalf("dials = %d, want 2", dc.count())
	}
	if w := sl.count(); len(w) != 1 || w[0] != 200*time.Millisecond {
		t.Fatalf("waits = %v, want one of 200ms", w)
	}
	for _, a := range attempts {
		if a.Class != client.ClassNotConnected || a.RequestTimeout <= 0 || a.ConnectTimeout > time.Second {
			t.Fatalf("attempt evidence %+v", a)
		}
	}
	if attempts[1].SpentBefore < attempts[0].Elapsed {
		t.Fatalf("second attempt's spent-before %v is less than the first's elapsed %v", attempts[1].SpentBefore, attempts[0].Elapsed)
	}
}

func TestRetryReachesTheServerWhenItComesBack(t *testing.T) {
	srv, c, sl, _ := setup(t)
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	srv.Refuse()
	sl.hook = func() {
		if err := srv.Accept(); err != nil {
			t.Error(err)
		}
	}
	it, attempts, err := c.Resubmit(context.Background(), id, "key-back")
	if err != nil {
		t.Fatal(err)
	}
	if it.Status != policy.StatusScored || len(attempts) != 2 || attempts[0].Class != client.ClassNotConnected || attempts[1].Class != client.ClassOK {
		t.Fatalf("item %s, attempts %+v", it.Status, attempts)
	}
	if srv.Arrivals(screenapi.EPResubmit) != 1 || srv.Analyses(id) != 1 {
		t.Fatalf("arrivals %d analyses %d", srv.Arrivals(screenapi.EPResubmit), srv.Analyses(id))
	}
}

func TestRetryAttemptsOneMeansNoRetry(t *testing.T) {
	sl, dc := &sleeper{}, &dialCounter{}
	cfg := testConfig("http://" + closedPort(t))
	cfg.RetryAttempts = 1
	c, _ := client.New(cfg, client.WithSleep(sl.sleep), client.WithDialer(dc.dial))
	_, attempts, err := c.GetItem(context.Background(), "x")
	mustClientErr(t, err, client.ClassNotConnected, policy.CodeAPIUnreachable)
	if len(attempts) != 1 || dc.count() != 1 || len(sl.count()) != 0 {
		t.Fatalf("attempts %d dials %d waits %v", len(attempts), dc.count(), sl.count())
	}
}

func TestNoRetryWhenTheBudgetCannotCoverIt(t *testing.T) {
	sl, dc := &sleeper{}, &dialCounter{}
	cfg := testConfig("http://" + closedPort(t))
	cfg.RetrySleep = time.Hour
	c, _ := client.New(cfg, client.WithSleep(sl.sleep), client.WithDialer(dc.dial))
	_, attempts, err := c.GetItem(context.Background(), "x")
	mustClientErr(t, err, client.ClassNotConnected, policy.CodeAPIUnreachable)
	if len(attempts) != 1 || dc.count() != 1 || len(sl.count()) != 0 {
		t.Fatalf("attempts %d dials %d waits %v", len(attempts), dc.count(), sl.count())
	}
}

func TestNoBudgetNoCall(t *testing.T) {
	srv, c, _, dc := setup(t, func(c *client.Config) { c.Reserve = time.Second })
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, attempts, err := c.Resubmit(ctx, srv.FindCode("CLASSIFIER_TIMEOUT"), "k")
	mustClientErr(t, err, client.ClassNotStarted, policy.CodeDeadlineExceeded)
	if dc.count() != 0 || srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatalf("dials %d arrivals %d", dc.count(), srv.Arrivals(screenapi.EPResubmit))
	}
	if len(attempts) != 1 || attempts[0].Class != client.ClassNotStarted || attempts[0].RequestTimeout != 0 {
		t.Fatalf("evidence %+v", attempts)
	}
}

func TestAttemptGetsWhatIsLeftOfTheDeadline(t *testing.T) {
	srv, c, _, _ := setup(t, func(c *client.Config) { c.Timeout = time.Minute; c.ConnectTimeout = time.Minute })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, attempts, err := c.GetItem(ctx, srv.FindCode("DECODE_FAILED"))
	if err != nil {
		t.Fatal(err)
	}
	a := attempts[0]
	if a.RequestTimeout > 3*time.Second-20*time.Millisecond || a.RequestTimeout < 2*time.Second || a.ConnectTimeout != a.RequestTimeout {
		t.Fatalf("allocated %v / %v from a 3s deadline with a 20ms reserve", a.RequestTimeout, a.ConnectTimeout)
	}
}

func TestUnknownOutcomesAreNeverRetried(t *testing.T) {
	// Each case gets the time it needs under -race on loaded cores: only the
	// hang has to meet its cap, so only the hang gets a short one.
	const roomy = 20 * time.Second
	tests := []struct {
		name    string
		fault   screenapi.Fault
		class   client.Class
		code    policy.Code
		status  int
		timeout time.Duration
		maxBody int
	}{
		{"hang after reading", screenapi.Fault{Kind: screenapi.FaultHang}, client.ClassUnknown, policy.CodeOutcomeUnknown, 0, 400 * time.Millisecond, 0},
		{"reset after reading", screenapi.Fault{Kind: screenapi.FaultReset}, client.ClassUnknown, policy.CodeOutcomeUnknown, 0, roomy, 0},
		{"reset after processing", screenapi.Fault{Kind: screenapi.FaultResetAfter}, client.ClassUnknown, policy.CodeOutcomeUnknown, 0, roomy, 0},
		{"502 without body", screenapi.Fault{Kind: screenapi.FaultBadGateway}, client.ClassUnknown, policy.CodeOutcomeUnknown, 502, roomy, 0},
		{"504 without body", screenapi.Fault{Kind: screenapi.FaultBadGateway, Status: 504}, client.ClassUnknown, policy.CodeOutcomeUnknown, 504, roomy, 0},
		{"truncated body", screenapi.Fault{Kind: screenapi.FaultTruncated}, client.ClassUnknown, policy.CodeOutcomeUnknown, 200, roomy, 0},
		{"503 with the service's body", screenapi.Fault{Kind: screenapi.FaultUnavailable}, client.ClassAnsweredNo, policy.CodeServiceUnavailable, 503, roomy, 0},
		{"429", screenapi.Fault{Kind: screenapi.FaultRateLimit, RetryAfter: "7"}, client.ClassRateLimited, policy.CodeRateLimited, 429, roomy, 0},
		{"malformed JSON", screenapi.Fault{Kind: screenapi.FaultMalformed}, client.ClassBadAnswer, policy.CodeInvalidResponse, 200, roomy, 0},
		// Over the default 8 MiB limit, announced: refused on its header, unread.
		{"body over 8 MiB, announced", screenapi.Fault{Kind: screenapi.FaultOversized, Announce: true}, client.ClassBadAnswer, policy.CodeInvalidResponse, 200, roomy, 0},
		// Streamed without a length: the limit is met while reading. A
		// lower limit keeps the read short; the 9 MiB body is the same.
		{"chunked body over the limit", screenapi.Fault{Kind: screenapi.FaultOversized}, client.ClassBadAnswer, policy.CodeInvalidResponse, 200, roomy, 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c, sl, _ := setup(t, func(c *client.Config) {
				c.Timeout = tt.timeout
				if tt.maxBody > 0 {
					c.MaxBody = tt.maxBody
				}
			})
			id := srv.FindCode("SOURCE_UNREACHABLE")
			f := tt.fault
			f.Endpoint = screenapi.EPResubmit
			srv.SetFault(f)
			before := time.Now()
			_, attempts, err := c.Resubmit(context.Background(), id, "key-"+tt.name)
			e := mustClientErr(t, err, tt.class, tt.code)
			if e.HTTPStatus != tt.status {
				t.Errorf("HTTP status %d, want %d", e.HTTPStatus, tt.status)
			}
			if len(attempts) != 1 || len(sl.count()) != 0 {
				t.Fatalf("attempts %+v waits %v: a request that went out must never be repeated", attempts, sl.count())
			}
			if got := srv.Arrivals(screenapi.EPResubmit); got != 1 {
				t.Fatalf("arrivals = %d, want 1", got)
			}
			wantAnalyses := 0
			if f.Kind == screenapi.FaultResetAfter {
				wantAnalyses = 1
			}
			if got := srv.Analyses(id); got != wantAnalyses {
				t.Fatalf("paid analyses = %d, want %d", got, wantAnalyses)
			}
			if tt.class == client.ClassRateLimited {
				if d := e.RetryAfter.Sub(before); d < 6*time.Second || d > 9*time.Second {
					t.Fatalf("Retry-After in %v, want about 7s", d)
				}
			}
		})
	}
}

func TestRetryAfterAsHTTPDate(t *testing.T) {
	srv, c, _, _ := setup(t)
	when := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, RetryAfter: when.Format(http1123)})
	_, _, err := c.GetItem(context.Background(), "itm_0001_01")
	e := mustClientErr(t, err, client.ClassRateLimited, policy.CodeRateLimited)
	if !e.RetryAfter.Equal(when) {
		t.Fatalf("RetryAfter %v, want %v", e.RetryAfter, when)
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

func TestSlowAnalysisIsTheServicesVerdictNotANetworkFailure(t *testing.T) {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: testToken, ClassifierBudget: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	id := srv.FindCode("CLASSIFIER_UNAVAILABLE")
	srv.SetAnalysisLatency(id, time.Second)
	sl := &sleeper{}
	c, _ := client.New(testConfig(srv.URL()), client.WithSleep(sl.sleep))
	it, attempts, err := c.Resubmit(context.Background(), id, "slow-1")
	if err != nil {
		t.Fatalf("a slow analysis reported by the service must be an answer, got %v", err)
	}
	if it.Status != policy.StatusError || it.ErrorCode != policy.CodeClassifierTimeout || it.RiskScore != nil {
		t.Fatalf("item %+v", it)
	}
	if len(attempts) != 1 || attempts[0].Class != client.ClassOK || srv.Arrivals(screenapi.EPResubmit) != 1 || srv.Analyses(id) != 1 {
		t.Fatalf("attempts %+v arrivals %d analyses %d", attempts, srv.Arrivals(screenapi.EPResubmit), srv.Analyses(id))
	}
}

func TestPostIsNeverReplayedByTheTransport(t *testing.T) {
	// A keep-alive connection is open from the GET; the POST then dies after
	// the service did its work. net/http would replay a POST carrying an
	// Idempotency-Key on a reused connection; ours must not.
	srv, c, _, _ := setup(t)
	id := srv.FindCode("FORENSICS_UNREACHABLE")
	if _, _, err := c.GetItem(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPResubmit, Times: 1})
	_, _, err := c.Resubmit(context.Background(), id, "replay-1")
	mustClientErr(t, err, client.ClassUnknown, policy.CodeOutcomeUnknown)
	if got := srv.Arrivals(screenapi.EPResubmit); got != 1 {
		t.Fatalf("arrivals = %d, want 1", got)
	}
	// Reconciling with the same key replays the stored answer: one analysis.
	it, _, err := c.Resubmit(context.Background(), id, "replay-1")
	if err != nil || it.Status != policy.StatusScored {
		t.Fatalf("reconcile: %v %s", err, it.Status)
	}
	if srv.Analyses(id) != 1 || srv.Arrivals(screenapi.EPResubmit) != 2 {
		t.Fatalf("analyses %d arrivals %d", srv.Analyses(id), srv.Arrivals(screenapi.EPResubmit))
	}
}

func TestTLS(t *testing.T) {
	ca := newCA(t)
	now := time.Now()
	tests := []struct {
		name  string
		cert  tls.Certificate
		class client.Class
		code  policy.Code
	}{
		{"trusted", leaf(t, ca, "127.0.0.1", now.Add(time.Hour), false), client.ClassOK, ""},
		{"expired", leaf(t, ca, "127.0.0.1", now.Add(-time.Hour), false), client.ClassUntrusted, policy.CodeTLSUntrusted},
		{"self-signed", leaf(t, ca, "127.0.0.1", now.Add(time.Hour), true), client.ClassUntrusted, policy.CodeTLSUntrusted},
		{"wrong host", leaf(t, ca, "127.0.0.2", now.Add(time.Hour), false), client.ClassUntrusted, policy.CodeTLSUntrusted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := screenapi.StartTLS("127.0.0.1:0", screenapi.Options{Token: testToken}, tt.cert)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			sl, dc := &sleeper{}, &dialCounter{}
			c, err := client.New(testConfig(srv.URL()), client.WithSleep(sl.sleep), client.WithDialer(dc.dial),
				client.WithRootCAs(&tls.Config{RootCAs: ca.Pool}))
			if err != nil {
				t.Fatal(err)
			}
			_, attempts, err := c.GetItem(context.Background(), srv.FindCode("INTERNAL_ERROR"))
			if tt.class == client.ClassOK {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			mustClientErr(t, err, tt.class, tt.code)
			if len(attempts) != 1 || dc.count() != 1 || srv.Arrivals(screenapi.EPItem) != 0 {
				t.Fatalf("an untrusted certificate is never retried: attempts %d dials %d arrivals %d", len(attempts), dc.count(), srv.Arrivals(screenapi.EPItem))
			}
		})
	}
}

func TestTLSHandshakeCutIsNotConnected(t *testing.T) {
	// A listener that accepts and hangs up during the handshake: nothing of
	// the request was written, so it is retried once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			conn.Close()
		}
	}()
	sl := &sleeper{}
	c, _ := client.New(testConfig("https://"+ln.Addr().String()), client.WithSleep(sl.sleep))
	_, attempts, err := c.GetItem(context.Background(), "x")
	mustClientErr(t, err, client.ClassNotConnected, policy.CodeAPIUnreachable)
	if len(attempts) != 2 || len(accepted) != 2 {
		t.Fatalf("attempts %d accepted %d", len(attempts), len(accepted))
	}
}

func TestPlainHTTPToARemoteHostIsRefusedWithoutDialing(t *testing.T) {
	failDial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		t.Fatalf("dialed %s: a refused URL must never reach the network", addr)
		return nil, errors.New("unreachable")
	}
	for _, u := range []string{"http://screening.example.com", "http://10.1.2.3:8001", "http://[2001:db8::1]/"} {
		cfg := testConfig(u)
		_, err := client.New(cfg, client.WithDialer(failDial))
		if policy.ErrorCode(err) != policy.CodeInvalidInput || !strings.Contains(err.Error(), "REVIEWER_ALLOW_INSECURE_HTTP") {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1", "https://screening.example.com"} {
		if _, err := client.New(testConfig(u), client.WithDialer(failDial)); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	cfg := testConfig("http://screening.example.com")
	cfg.AllowInsecureHTTP = true
	if _, err := client.New(cfg, client.WithDialer(failDial)); err != nil {
		t.Errorf("allowed insecure refused: %v", err)
	}
}

func TestCircuitOpensAfterFiveFailuresAndASingleProbeClosesIt(t *testing.T) {
	srv, c, _, dc := setup(t, func(c *client.Config) { c.RetryAttempts = 1; c.CircuitOpen = 100 * time.Millisecond })
	srv.Refuse()
	for i := 0; i < 5; i++ {
		_, _, err := c.GetItem(context.Background(), "x")
		mustClientErr(t, err, client.ClassNotConnected, policy.CodeAPIUnreachable)
	}
	if !c.Health().CircuitOpen || c.Health().RetryAt.IsZero() {
		t.Fatalf("health %+v", c.Health())
	}
	_, _, err := c.GetItem(context.Background(), "x")
	mustClientErr(t, err, client.ClassNotStarted, policy.CodeCircuitOpen)
	if dc.count() != 5 {
		t.Fatalf("dials = %d: an open circuit must fail without calling", dc.count())
	}
	if err := srv.Accept(); err != nil {
		t.Fatal(err)
	}
	// The breaker's clock is the real one: poll its state, bounded.
	pollUntil(t, 5*time.Second, func() bool { return c.Health().HalfOpen })
	if _, _, err := c.GetItem(context.Background(), srv.FindCode("DECODE_FAILED")); err != nil {
		t.Fatalf("probe: %v", err)
	}
	if h := c.Health(); h.CircuitOpen || h.HalfOpen {
		t.Fatalf("one good probe must close the circuit: %+v", h)
	}
}

func TestReplacementRetrySendsTheWholeFile(t *testing.T) {
	// 1.6 MB through a connection retry: room for -race on loaded cores.
	srv, c, sl, _ := setup(t, func(c *client.Config) { c.Timeout = 20 * time.Second })
	id := srv.FindCode("DECODE_FAILED")
	data := append([]byte("\xFF\xD8\xFF\xE0"), bytes.Repeat([]byte("jpegdata"), 200_000)...)
	srv.Refuse()
	sl.hook = func() { _ = srv.Accept() }
	it, attempts, err := c.Replace(context.Background(), id, "up-1", "new.jpg", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 2 || it.Status != policy.StatusScored {
		t.Fatalf("attempts %d status %s", len(attempts), it.Status)
	}
	sum := sha256.Sum256(data)
	ups := srv.Uploads(id)
	if len(ups) != 1 || ups[0].Size != len(data) || ups[0].SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("uploads %+v, want one of %d bytes", ups, len(data))
	}
}

func TestTheTokenNeverLeaks(t *testing.T) {
	srv, c, _, _ := setup(t, func(c *client.Config) { c.Timeout = 300 * time.Millisecond })
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultHang})
	_, attempts, err := c.GetItem(context.Background(), "x")
	srv.ClearFaults()
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable})
	_, attempts2, err2 := c.GetItem(context.Background(), "x")
	cfg := c.Config()
	for _, s := range []string{err.Error(), err2.Error(), fmt.Sprintf("%+v %+v", attempts, attempts2),
		fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg), cfg.Token.String()} {
		if strings.Contains(s, testToken) {
			t.Fatalf("token leaked: %s", s)
		}
	}
	if cfg.Token.Reveal() != testToken {
		t.Fatal("the token itself is still usable")
	}
}
