package review_test

import (
	"context"
	"testing"
	"time"

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
		st, err := e.svc.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Conn.State
	}
	if called, err := e.svc.Probe(ctx); !called || err != nil || state() != review.ConnOnline {
		t.Fatalf("probe on a live API: called %v err %v state %s", called, err, state())
	}
	e.srv.Refuse()
	e.api.Close() // a stopped API drops its connections too
	if called, _ := e.svc.Probe(ctx); !called || state() != review.ConnOffline {
		t.Fatalf("API down: state %s", state())
	}
	if err := e.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	if _, _ = e.svc.Probe(ctx); state() != review.ConnOnline {
		t.Fatalf("API back: state %s", state())
	}
}

// A rate-limit wait (Retry-After) is honoured: no probe goes out.
func TestProbeHonoursRetryAfter(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	if err := e.db.SetRateLimitedUntil(ctx, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	before := e.srv.Arrivals(screenapi.EPBatches)
	if called, err := e.svc.Probe(ctx); called || err != nil {
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
	res, err := e.svc.Resubmit(actx, id)
	if err != nil || res.Action.State != policy.ActionUnknown {
		t.Fatalf("%+v %v", res, err)
	}
	st, _ := e.svc.Status(ctx)
	if st.Conn.State != review.ConnOnline {
		t.Fatalf("one unknown outcome turned the connection %s", st.Conn.State)
	}
}

// The window says where the reviewer's name came from: after a sync with a
// 1.1 service, from the service.
func TestReviewerFromService(t *testing.T) {
	e := setup(t)
	if e.svc.ReviewerFromService() {
		t.Fatal("from the service before it was asked")
	}
	e.sync(t)
	if e.svc.APIVersion() == "1.1" && !e.svc.ReviewerFromService() {
		t.Fatalf("the service named %q, but the window would say it came from the console", e.svc.Reviewer())
	}
}
