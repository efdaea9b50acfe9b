package review_test

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// TestASendingActionWhoseLeaseRanOutStaysUnknownOffline: an action that
// may have run stays unknown, here after a crash: a process sent a re-submission, the service ran
// it, and the process was killed before it recorded the answer. After the
// lease, a flush that cannot reach the API must leave the action unknown
// (not queued), cancel and a second action must be refused, and the flush
// with the API back reconciles it with the same key: one paid analysis.
func TestASendingActionWhoseLeaseRanOutStaysUnknownOffline(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	err := helperCmd(e, "crash-after-call", id).Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die by SIGKILL: %v", err)
	}
	if e.srv.Analyses(id) != 1 {
		t.Fatalf("the service ran %d analyses before the crash", e.srv.Analyses(id))
	}
	out, _ := e.svc.Actions.Outbox(ctx)
	if len(out) != 1 || out[0].State != policy.ActionSending {
		t.Fatalf("outbox after the crash %+v", out)
	}
	key := out[0].Key

	// Time passes beyond the lease; the API is unreachable.
	setStoreClock(e.db, func() time.Time { return time.Now().Add(time.Hour) })
	e.srv.Refuse()
	fr, err := e.svc.Actions.Flush(ctx)
	if err != nil || fr.Unknown != 1 || fr.Queued != 0 || fr.Sent() != 1 {
		t.Fatalf("flush while unreachable: %+v %v", fr, err)
	}
	a, _ := e.db.Outbox.Action(ctx, out[0].ID)
	if a.State != policy.ActionUnknown || a.Key != key {
		t.Fatalf("a taken-over action met an unreachable API and became %s", a.State)
	}
	// A second flush meets the same: still unknown.
	if fr, _ := e.svc.Actions.Flush(ctx); fr.Unknown != 1 {
		t.Fatalf("second flush %+v", fr)
	}
	if _, err := e.svc.Actions.Cancel(ctx, a.ID); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("an action that may have run was cancelled: %v", err)
	}
	if _, err := e.svc.Actions.Resubmit(ctx, id); policy.ErrorCode(err) != policy.CodeActionOpen {
		t.Fatalf("a second re-submission beside an unknown one: %v", err)
	}
	if err := e.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	fr, err = e.svc.Actions.Flush(ctx)
	if err != nil || fr.Done != 1 || fr.Results[0].Action.Key != key {
		t.Fatalf("%+v %v", fr, err)
	}
	if e.srv.Analyses(id) != 1 || e.srv.Arrivals(screenapi.EPResubmit) != 2 {
		t.Fatalf("%d paid analyses, %d arrivals: want 1 and 2", e.srv.Analyses(id), e.srv.Arrivals(screenapi.EPResubmit))
	}
}

// TestConcurrentFlushesCountOnlyWhatEachSent: each flush counts only what it sent. Three flushes
// at once over forty actions. Each counts only what it sent; their "done"
// add up to forty, and every action is analysed once.
func TestConcurrentFlushesCountOnlyWhatEachSent(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	rows, err := e.db.Items.Items(ctx, store.ItemFilter{Retryable: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		if len(ids) < 40 {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) < 40 {
		t.Fatalf("only %d retryable items in the reference data", len(ids))
	}
	e.srv.Refuse()
	for _, id := range ids {
		if res, err := e.svc.Actions.Resubmit(ctx, id); err != nil || res.Action.State != policy.ActionQueued {
			t.Fatalf("%+v %v", res, err)
		}
	}
	if err := e.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	const flushers = 3
	results := make([]review.FlushResult, flushers)
	var wg sync.WaitGroup
	for i := range flushers {
		db, api, svc := newService(t, e.srv.URL(), e.path)
		t.Cleanup(func() { api.Close(); db.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			fr, err := svc.Actions.Flush(ctx)
			if err != nil {
				t.Error(err)
			}
			results[i] = fr
		}()
	}
	wg.Wait()
	done, sent := 0, 0
	for _, fr := range results {
		if fr.Done != fr.Sent() || fr.Sent() != len(fr.Results) {
			t.Errorf("a flush counted what it did not send: %+v", fr)
		}
		for _, r := range fr.Results {
			if r.Unleased != review.Leased || r.Action.State != policy.ActionDone {
				t.Errorf("result %+v", r)
			}
		}
		done += fr.Done
		sent += fr.Sent()
	}
	if done != len(ids) || sent != len(ids) {
		t.Fatalf("flushes reported %d done, %d sent for %d actions: %+v %+v %+v", done, sent, len(ids), results[0], results[1], results[2])
	}
	for _, id := range ids {
		if e.srv.Analyses(id) != 1 {
			t.Fatalf("%s analysed %d times", id, e.srv.Analyses(id))
		}
	}
	if out, _ := e.svc.Actions.Outbox(ctx); len(out) != 0 {
		t.Fatalf("outbox %+v", out)
	}
}

// TestAFencedSenderIsToldItsCallWasMade: a fenced sender made its call, at the workflow's level.
// The sender's lease runs out while its answer travels; another process
// takes the action over. The first sender's outcome is refused (fenced) and
// its error is an unknown outcome that says the call was made.
func TestAFencedSenderIsToldItsCallWasMade(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("INTERNAL_ERROR")
	db2, api2, svc2 := newService(t, e.srv.URL(), e.path)
	defer db2.Close()
	defer api2.Close()
	setStoreClock(db2, func() time.Time { return time.Now().Add(time.Hour) })
	var taken review.FlushResult
	e.svc.SetAfterCall(func(store.Action) { taken, _ = svc2.Actions.Flush(ctx) })
	res, err := e.svc.Actions.Resubmit(ctx, id)
	if policy.ErrorCode(err) != policy.CodeOutcomeUnknown || !errorsIsFenced(err) {
		t.Fatalf("%+v %v", res, err)
	}
	if taken.Done != 1 || res.Action.State != policy.ActionDone || e.srv.Analyses(id) != 1 {
		t.Fatalf("take-over %+v, action %+v, %d analyses", taken, res.Action, e.srv.Analyses(id))
	}
}

func errorsIsFenced(err error) bool { return errors.Is(err, store.ErrFenced) }
