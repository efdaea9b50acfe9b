package review_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

func TestBulkRunSendsEachOnceWithBoundedConcurrency(t *testing.T) {
	e := setup(t)
	p := planned(t, e)
	ctx := context.Background()
	run, err := e.svc.Runs.Confirm(ctx, p)
	if err != nil || len(run.Actions) != len(p.Items) || run.Confirmed != len(p.Items) {
		t.Fatalf("%+v %v", run.BulkRun, err)
	}
	// Queued durably before any call, each with its own key.
	keys := map[string]bool{}
	for _, a := range run.Actions {
		if a.State != policy.ActionQueued || keys[a.Key] {
			t.Fatalf("%+v", a)
		}
		keys[a.Key] = true
	}
	if e.srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatal("confirming sent something")
	}
	var mu sync.Mutex
	maxSending, reports := 0, 0
	res, err := e.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{Concurrency: 3, Progress: func(p review.RunProgress) {
		mu.Lock()
		defer mu.Unlock()
		reports++
		maxSending = max(maxSending, p.Sending)
	}})
	if err != nil || res.Stopped != "" || res.Progress.Done != len(p.Items) {
		t.Fatalf("%+v %v", res.Progress, err)
	}
	if maxSending > 3 || reports < len(p.Items) {
		t.Fatalf("%d in flight at most, %d reports", maxSending, reports)
	}
	if st := checkEffects(t, e, e.db, p, run.ID); st[policy.ActionDone] != len(p.Items) {
		t.Fatalf("%v", st)
	}
	if fr, _ := e.svc.Actions.Flush(ctx); len(fr.Results) != 0 {
		t.Fatalf("a flush after the run sent %d", len(fr.Results))
	}
	if _, err := e.svc.Runs.Confirm(ctx, p); err != nil {
		t.Fatal(err) // confirming the old plan again: every item changed
	}
	if e.srv.TotalAnalyses() != len(p.Items) {
		t.Fatalf("%d analyses", e.srv.TotalAnalyses())
	}
}

func TestBulkRunFaultsHalfway(t *testing.T) {
	tests := []struct {
		name   string
		mod    func(*client.Config)
		fault  func(*screenapi.Server)
		repair func(*screenapi.Server)
		stop   string
	}{
		{"connection refused", nil, (*screenapi.Server).Refuse, func(s *screenapi.Server) { s.Accept() }, "nothing reached the API"},
		{"breaker opens", func(c *client.Config) { c.CircuitFailures = 2 },
			func(s *screenapi.Server) {
				s.SetFault(screenapi.Fault{Kind: screenapi.FaultReset, Endpoint: screenapi.EPResubmit})
			}, (*screenapi.Server).ClearFaults, "the API stopped answering"},
		{"429 with Retry-After", nil, func(s *screenapi.Server) {
			s.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPResubmit, RetryAfter: "120", Times: 1})
		}, func(*screenapi.Server) {}, "wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mods []func(*client.Config)
			if tt.mod != nil {
				mods = append(mods, tt.mod)
			}
			e := setup(t, mods...)
			p := planned(t, e)
			ctx := context.Background()
			run, err := e.svc.Runs.Confirm(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			res, err := e.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{Concurrency: 2, Progress: func(p review.RunProgress) {
				if p.Done >= 3 {
					once.Do(func() { tt.fault(e.srv) })
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Progress.Queued == 0 || res.Progress.Done < 3 {
				t.Fatalf("%+v stopped %q", res.Progress, res.Stopped)
			}
			if tt.stop != "wait" && !strings.Contains(res.Stopped, tt.stop) && !strings.Contains(res.Stopped, "nothing reached") {
				t.Fatalf("stopped %q, want %q", res.Stopped, tt.stop)
			}
			if tt.stop == "wait" && !strings.Contains(res.Stopped, "rate-limiting") && !strings.Contains(res.Stopped, "wait until") {
				t.Fatalf("stopped %q", res.Stopped)
			}
			t.Logf("%+v, stopped: %s", res.Progress, res.Stopped)
			if tt.name == "breaker opens" && !e.api.Health().CircuitOpen {
				t.Fatal("the circuit did not open")
			}
			st := checkEffects(t, e, e.db, p, run.ID)
			if st[policy.ActionQueued] != res.Progress.Queued || st[policy.ActionSending] != 0 {
				t.Fatalf("states %v, progress %+v", st, res.Progress)
			}
			// The rest goes out with the next flush, in a new session.
			tt.repair(e.srv)
			db2, api2, svc2 := newService(t, e.srv.URL(), e.path)
			defer db2.Close()
			defer api2.Close()
			if tt.stop == "wait" {
				// The one turned away waits for its Retry-After (120 s):
				// a flush after it.
				later := func() time.Time { return time.Now().Add(121 * time.Second) }
				setStoreClock(db2, later)
				svc2.SetClock(later)
			}
			if _, err := svc2.Actions.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			st = checkEffects(t, e, db2, p, run.ID)
			if st[policy.ActionDone]+st[policy.ActionFailed] != len(p.Items) || st[policy.ActionFailed] > 2 {
				t.Fatalf("after the flush %v", st)
			}
		})
	}
}

func TestBulkUndoCancelsWhatWasNotSent(t *testing.T) {
	e := setup(t)
	p := planned(t, e)
	ctx := context.Background()
	run, err := e.svc.Runs.Confirm(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Refuse()
	res, err := e.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{})
	if err != nil || res.Progress.Queued != len(p.Items) || res.Stopped == "" {
		t.Fatalf("%+v %q %v", res.Progress, res.Stopped, err)
	}
	cancelled, err := e.svc.Runs.CancelRun(ctx, run.ID)
	if err != nil || len(cancelled) != len(p.Items) {
		t.Fatalf("%d cancelled %v", len(cancelled), err)
	}
	e.srv.Accept()
	db2, api2, svc2 := newService(t, e.srv.URL(), e.path)
	defer db2.Close()
	defer api2.Close()
	if fr, _ := svc2.Actions.Flush(ctx); len(fr.Results) != 0 || e.srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatalf("cancelled actions were sent: %+v", fr)
	}
	if st := checkEffects(t, e, db2, p, run.ID); st[policy.ActionCancelled] != len(p.Items) {
		t.Fatalf("%v", st)
	}
	// The items may be planned again.
	again, _ := svc2.Runs.PlanResubmit(ctx, inError)
	if len(again.Items) != len(p.Items) {
		t.Fatalf("%d planned after the undo", len(again.Items))
	}
}

// TestBulkRunKilledHalfwayEndsWithOneEffectEach kills a process in the middle
// of a bulk run (SIGKILL, after its third done). A new process on the same
// cache finishes the run with a flush: every item one paid analysis, none
// sent twice, however many were in flight at the kill.
func TestBulkRunKilledHalfwayEndsWithOneEffectEach(t *testing.T) {
	e := setup(t)
	p := planned(t, e)
	cmd := helperCmd(e, "bulk-crash", "")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die by SIGKILL: %v %s", err, out)
	}
	ctx := context.Background()
	db2, api2, svc2 := newService(t, e.srv.URL(), e.path)
	defer db2.Close()
	defer api2.Close()
	runs, err := db2.Runs.RunActions(ctx, 1)
	if err != nil || len(runs) != len(p.Items) {
		t.Fatalf("the run after the kill: %d actions %v", len(runs), err)
	}
	// A send in flight at the kill holds its lease: after it runs out, the
	// flush reconciles it with the same key.
	setStoreClock(db2, func() time.Time { return time.Now().Add(2 * roomyTimeout) })
	for range 3 {
		if _, err := svc2.Actions.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := checkEffects(t, e, db2, p, 1); st[policy.ActionDone] != len(p.Items) {
		t.Fatalf("%v", st)
	}
	if e.srv.Arrivals(screenapi.EPResubmit) < len(p.Items) || e.srv.TotalAnalyses() != len(p.Items) {
		t.Fatalf("arrivals %d analyses %d", e.srv.Arrivals(screenapi.EPResubmit), e.srv.TotalAnalyses())
	}
}

// bulkCrash is the helper process of the kill test.
func bulkCrash(svc *review.Service) {
	ctx := context.Background()
	p, err := svc.Runs.PlanResubmit(ctx, inError)
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := svc.Runs.Confirm(ctx, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _ = svc.Runs.SendRun(ctx, run.ID, review.RunOptions{Progress: func(p review.RunProgress) {
		if p.Done >= 3 {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}})
	fmt.Println("the run ended before the kill")
}

// TestA429MidRunLeavesTheRestQueuedAndSendsThemAfterTheWait: a bulk run
// that meets a 429 on its third send stops starting sends; the one turned
// away and the rest stay queued (a 429 ran nothing, by the contract), a
// flush during the wait sends nothing, and after the Retry-After each goes
// out once, the turned-away one with its own key.
func TestA429MidRunLeavesTheRestQueuedAndSendsThemAfterTheWait(t *testing.T) {
	e := setup(t)
	clk := &fakeClock{}
	setStoreClock(e.db, clk.Now)
	e.svc.SetClock(clk.Now)
	p := planned(t, e)
	ctx := context.Background()
	run, err := e.svc.Runs.Confirm(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[int64]string{}
	for _, a := range run.Actions {
		keys[a.ID] = a.Key
	}
	var once sync.Once
	res, err := e.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{Concurrency: 1, Progress: func(p review.RunProgress) {
		if p.Done == 2 {
			once.Do(func() {
				e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPResubmit, RetryAfter: "60", Times: 1})
			})
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Progress.Done != 2 || res.Progress.Queued != len(p.Items)-2 || res.Progress.Failed != 0 || !strings.Contains(res.Stopped, "rate-limiting") {
		t.Fatalf("after the 429: %+v, stopped %q", res.Progress, res.Stopped)
	}
	turnedAway, waitedID := 0, int64(0)
	for _, it := range res.Items {
		if it.Action.LastErrorCode == policy.CodeRateLimited {
			turnedAway, waitedID = turnedAway+1, it.Action.ID
			if it.Action.State != policy.ActionQueued || it.Action.NotBefore.Before(clk.Now().Add(50*time.Second)) {
				t.Fatalf("the one turned away: %+v", it.Action)
			}
		}
	}
	if turnedAway != 1 || e.srv.Arrivals(screenapi.EPResubmit) != 3 {
		t.Fatalf("%d turned away, %d arrivals", turnedAway, e.srv.Arrivals(screenapi.EPResubmit))
	}
	checkEffects(t, e, e.db, p, run.ID)

	// A flush during the wait sends nothing and says until when.
	fr, err := e.svc.Actions.Flush(ctx)
	if err != nil || fr.Sent() != 0 || len(fr.Waiting) != len(p.Items)-2 || e.srv.Arrivals(screenapi.EPResubmit) != 3 {
		t.Fatalf("a flush in the wait: sent %d, waiting %d, %v", fr.Sent(), len(fr.Waiting), err)
	}
	until := fr.WaitingUntil()
	if until.Before(clk.Now().Add(50 * time.Second)) {
		t.Fatalf("waiting until %s", until)
	}
	// Nearly a minute on: the last second of the wait passes on the timer.
	clk.Add(59 * time.Second)
	if err := e.svc.Actions.AwaitRateLimit(ctx, &fr, clk.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if len(fr.Waiting) != 0 || fr.Done != len(p.Items)-2 {
		t.Fatalf("after the wait: %d done, %d waiting, %+v", fr.Done, len(fr.Waiting), fr)
	}
	for _, r := range fr.Results {
		if r.Action.Key != keys[r.Action.ID] {
			t.Fatalf("action %d went out with a new key", r.Action.ID)
		}
		if want := map[bool]int{true: 2, false: 1}[r.Action.ID == waitedID]; r.Action.Sends != want || !r.Action.NotBefore.IsZero() {
			t.Fatalf("sent %d times, want %d: %+v", r.Action.Sends, want, r.Action)
		}
	}
	if st := checkEffects(t, e, e.db, p, run.ID); st[policy.ActionDone] != len(p.Items) {
		t.Fatalf("%v", st)
	}
	if e.srv.Arrivals(screenapi.EPResubmit) != len(p.Items)+1 || e.srv.TotalAnalyses() != len(p.Items) {
		t.Fatalf("%d arrivals, %d analyses for %d items", e.srv.Arrivals(screenapi.EPResubmit), e.srv.TotalAnalyses(), len(p.Items))
	}
}

// A run whose summary cannot be read from the cache once its sends are
// over is still a confirmed run: SendRun says that the summary could not
// be read (a *SummaryError) and returns what it saw of every action,
// never an empty result that reads as nothing done.
func TestARunWhoseSummaryCannotBeReadSaysWhatItSaw(t *testing.T) {
	e := setup(t)
	p := planned(t, e)
	ctx := context.Background()
	run, err := e.svc.Runs.Confirm(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	e.svc.SetBeforeSummary(func() { e.db.Close() }) // the cache goes away under the run
	res, err := e.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{Concurrency: 2, CountsOnly: true})
	var unread *review.SummaryError
	if !errors.As(err, &unread) {
		t.Fatalf("want the summary's error, got %v", err)
	}
	n := len(p.Items)
	if res.Run.ID != run.ID || res.Progress.Total != n || res.Progress.Done != n || res.Items != nil {
		t.Fatalf("what the run saw: run %d, %+v, %d items; want run %d, %d done", res.Run.ID, res.Progress, len(res.Items), run.ID, n)
	}
	if got := e.srv.Arrivals(screenapi.EPResubmit); got != n {
		t.Fatalf("%d re-submissions arrived, want %d", got, n)
	}
}

// A plan to confirm (PlanToConfirm) holds the ids of what it acts on, and
// its confirmation (ConfirmEach) queues those and no other: an item that
// enters the selection after the plan is not queued, one that left it is
// left out and said, and the run holds no action in memory.
func TestAPlanToConfirmQueuesWhatItHeldAndNoMore(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	held, err := e.svc.Runs.PlanResubmit(ctx, inError)
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.svc.Runs.PlanToConfirm(ctx, inError, policy.ActionResubmit)
	if err != nil || p.Items != nil || p.Len() != len(held.Items) || p.Headline() != held.Headline() ||
		strings.Join(p.SkipLines(), ";") != strings.Join(held.SkipLines(), ";") {
		t.Fatalf("%d items held, %q %q; want %q %q (%v)", len(p.Items), p.Headline(), p.SkipLines(), held.Headline(), held.SkipLines(), err)
	}
	var listed []review.PlanItem
	if err := e.svc.Runs.EachPlanItem(ctx, p, func(it review.PlanItem) error { listed = append(listed, it); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(listed) != fmt.Sprint(held.Items) {
		t.Fatalf("listed %v\nwant %v", listed, held.Items)
	}
	// After the plan: a new item in error, and the first planned one scored.
	at := time.Now().UTC().Truncate(time.Millisecond)
	first, err := e.db.Items.Item(ctx, held.Items[0].ItemID)
	if err != nil {
		t.Fatal(err)
	}
	score := 10
	scored := first.Item
	scored.Status, scored.ErrorCode, scored.ReportedCode, scored.ErrorMessage = policy.StatusScored, "", "", ""
	scored.RiskScore, scored.Recommendation, scored.UpdatedAt = &score, policy.RecommendForward, at
	fresh := policy.Item{ID: "itm_after_the_plan", BatchID: "bat_after_the_plan", Kind: policy.KindSelfie, FileName: "late.jpg",
		MediaType: "image/jpeg", Status: policy.StatusError, ErrorCode: policy.CodeClassifierTimeout,
		ReportedCode: string(policy.CodeClassifierTimeout), Attempt: 1, UpdatedAt: at}
	if _, err := e.db.Sync.ApplyPage(ctx, []policy.Batch{
		{ID: first.BatchID, CustomerRef: "CUST", CreatedAt: at, UpdatedAt: at, Items: []policy.Item{scored}},
		{ID: fresh.BatchID, CustomerRef: "CUST-LATE", CreatedAt: at, UpdatedAt: at, Items: []policy.Item{fresh}},
	}); err != nil {
		t.Fatal(err)
	}
	var left []store.Refusal
	run, err := e.svc.Runs.ConfirmEach(ctx, p, func(f store.Refusal) { left = append(left, f) })
	if err != nil {
		t.Fatal(err)
	}
	if run.Queued != p.Len()-1 || run.LeftOut != 1 || len(left) != 1 || left[0].ItemID != first.ID || run.Actions != nil || run.Refused != nil {
		t.Fatalf("run %+v, left out %v", run, left)
	}
	if r, err := e.db.Items.Item(ctx, fresh.ID); err != nil || r.OpenAction() != "" {
		t.Fatalf("the item that came after the plan: %+v %v", r.OpenAction(), err)
	}
	counts, err := e.db.Runs.RunCounts(ctx, run.ID)
	if err != nil || counts[policy.ActionQueued] != p.Len()-1 {
		t.Fatalf("%v %v", counts, err)
	}
}
