package review_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
)

// The connection state follows the API through the idle probe, not the
// reviewer's last action: down is seen without acting, and back up too.
func TestProbeFollowsTheAPI(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	state := func() review.ConnState {
		st, err := e.svc.Sync.Connectivity(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Conn.State
	}
	if called, err := e.svc.Sync.Probe(ctx); !called || err != nil || state() != review.ConnOnline {
		t.Fatalf("probe on a live API: called %v err %v state %s", called, err, state())
	}
	e.srv.Refuse()
	e.api.Close() // a stopped API drops its connections too
	if called, _ := e.svc.Sync.Probe(ctx); !called || state() != review.ConnOffline {
		t.Fatalf("API down: state %s", state())
	}
	if err := e.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	if _, _ = e.svc.Sync.Probe(ctx); state() != review.ConnOnline {
		t.Fatalf("API back: state %s", state())
	}
}

// A rate-limit wait (Retry-After) is honoured: no probe goes out.
func TestProbeHonoursRetryAfter(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	if err := e.db.Sync.SetRateLimitedUntil(ctx, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	before := e.srv.Arrivals(screenapi.EPBatches)
	if called, err := e.svc.Sync.Probe(ctx); called || err != nil {
		t.Fatalf("probed during a Retry-After wait: %v %v", called, err)
	}
	if e.srv.Arrivals(screenapi.EPBatches) != before {
		t.Fatal("a request reached the API during the wait")
	}
}

// One action whose answer never came is that item's unknown outcome; the
// window does not call the whole API offline for it.
func TestAnUnknownOutcomeDoesNotTurnTheConnectionOffline(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultHang, Endpoint: screenapi.EPResubmit, Times: 1})
	// The reviewer stops waiting once the request is at the service.
	sent := e.srv.Arrivals(screenapi.EPResubmit)
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for e.srv.Arrivals(screenapi.EPResubmit) == sent && actx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	res, err := e.svc.Actions.Resubmit(actx, id)
	if err != nil || res.Action.State != policy.ActionUnknown {
		t.Fatalf("%+v %v", res, err)
	}
	st, _ := e.svc.Sync.Connectivity(ctx)
	if st.Conn.State != review.ConnOnline {
		t.Fatalf("one unknown outcome turned the connection %s", st.Conn.State)
	}
}

// The window says where the reviewer's name came from: after a sync with a
// 1.1 service, from the service. The sync must have asked the service who
// is calling (GET /v1/me) and taken its answer: an identification that
// fails quietly leaves the console's own name and fails here.
func TestReviewerFromService(t *testing.T) {
	e := setup(t)
	if e.svc.Team.ReviewerFromService() {
		t.Fatal("from the service before it was asked")
	}
	if e.svc.Team.Reviewer() != "ana" {
		t.Fatalf("before the sync the reviewer is %q, want the console's own %q", e.svc.Team.Reviewer(), "ana")
	}
	e.sync(t)
	if n := e.srv.Arrivals(screenapi.EPMe); n != 1 {
		t.Fatalf("the sync asked the service who is calling %d times, want once", n)
	}
	// The reference service names a caller "reviewer" (one token).
	if v, who := e.svc.Team.APIVersion(), e.svc.Team.Reviewer(); v != "1.1" || who != "reviewer" {
		t.Fatalf("after the sync: contract %q, reviewer %q; want 1.1 and the service's %q", v, who, "reviewer")
	}
	if !e.svc.Team.ReviewerFromService() {
		t.Fatalf("the service named %q, but the window would say it came from the console", e.svc.Team.Reviewer())
	}
}

// The window reads who acts, from a goroutine of its own, while a sync
// learns it from the service on another: under -race, a read without the
// lock that SetReviewer takes fails here.
func TestReviewerReadDuringIdentification(t *testing.T) {
	e := setup(t)
	stop, seen := make(chan struct{}), make(chan map[string]bool)
	go func() { // the window
		names := map[string]bool{}
		for {
			select {
			case <-stop:
				seen <- names
				return
			default:
				names[e.svc.Team.Reviewer()] = true
				runtime.Gosched()
			}
		}
	}()
	_, err := e.svc.Sync.Sync(context.Background(), nil)
	close(stop)
	names := <-seen
	if err != nil {
		t.Fatal(err)
	}
	if !names["ana"] && !names["reviewer"] {
		t.Fatalf("the window never read the reviewer during the sync: %v", names)
	}
	if e.svc.Team.Reviewer() != "reviewer" {
		t.Fatalf("after the sync the reviewer is %q, want the service's", e.svc.Team.Reviewer())
	}
}

// Once the breaker's pause is over, the connection is not reported as a
// circuit open with no retry time (the window showed "trying again at
// 00:00"): a call it refused earlier says nothing of now.
func TestAnOpenCircuitsPastPauseIsNotReportedWithoutARetryTime(t *testing.T) {
	e := setup(t, func(c *client.Config) { c.CircuitFailures, c.CircuitOpen = 1, 50*time.Millisecond })
	e.sync(t)
	ctx := context.Background()
	e.srv.Refuse()
	if res, err := e.svc.Actions.Resubmit(ctx, e.srv.FindCode("CLASSIFIER_TIMEOUT")); err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("%+v %v", res, err)
	}
	if res, err := e.svc.Actions.Resubmit(ctx, e.srv.FindCode("INTERNAL_ERROR")); err != nil || policy.ErrorCode(res.Err) != policy.CodeCircuitOpen {
		t.Fatalf("the second call met %+v %v, want the open circuit", res, err)
	}
	if st, _ := e.svc.Sync.Connectivity(ctx); st.Conn.State != review.ConnCircuitOpen || st.Conn.RetryAt.IsZero() {
		t.Fatalf("while open: %+v", st.Conn)
	}
	deadline := time.Now().Add(10 * time.Second)
	for e.api.Health().CircuitOpen { // the breaker's own pause ends
		if time.Now().After(deadline) {
			t.Fatal("the circuit never let a call through")
		}
		runtime.Gosched()
	}
	st, err := e.svc.Sync.Connectivity(ctx)
	if err != nil || (st.Conn.State == review.ConnCircuitOpen && !st.Conn.RetryAt.After(time.Now())) {
		t.Fatalf("after the pause: %+v %v", st.Conn, err)
	}
	if st.Outbox.Queued != 2 || st.Outbox.Empty() {
		t.Fatalf("outbox %+v, want 2 queued", st.Outbox)
	}
}

// The probe goes past an open breaker: the API's return is seen at once,
// not after the breaker's pause (here an hour), and its answer closes the
// breaker, so that the queued action goes out with the next flush.
func TestTheProbeSeesTheAPIReturnThroughAnOpenBreaker(t *testing.T) {
	e := setup(t, func(c *client.Config) { c.CircuitFailures, c.CircuitOpen = 1, time.Hour })
	e.sync(t)
	ctx := context.Background()
	e.srv.Refuse()
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	if res, err := e.svc.Actions.Resubmit(ctx, id); err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("%+v %v", res, err)
	}
	if !e.api.Health().CircuitOpen {
		t.Fatal("the breaker did not open")
	}
	e.srv.Accept()
	called, err := e.svc.Sync.Probe(ctx)
	if err != nil || !called {
		t.Fatalf("the probe did not call through the open breaker: %v %v", called, err)
	}
	if st, _ := e.svc.Sync.Connectivity(ctx); st.Conn.State != review.ConnOnline || e.api.Health().CircuitOpen {
		t.Fatalf("after the probe's answer: %+v, breaker open %v", st.Conn, e.api.Health().CircuitOpen)
	}
	fr, err := e.svc.Actions.Flush(ctx)
	if err != nil || fr.Done != 1 || e.srv.Analyses(id) != 1 {
		t.Fatalf("the flush after the probe: %+v %v", fr, err)
	}
}
