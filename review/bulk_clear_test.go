package review_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
)

// Bulk clear (issue 29, item 8): a decision of the table of kinds, planned
// over many items, on a real cache and the reference service on loopback.

// clearable makes the service's item a scored one with the score and the
// recommendation given.
func clearable(score float64, rec string) func(*policy.RawItem) {
	return func(it *policy.RawItem) {
		it.Status, it.RiskScore, it.Recommendation = "scored", &score, &rec
		it.ErrorCode, it.ErrorMessage = nil, nil
	}
}

// everyKind makes twelve items of two seeded batches into one of each kind
// a bulk clear meets, as ana's cache holds them after a sync: the ids of the
// two to clear, and what each of the others must be left out for.
func everyKind(t *testing.T, tm *team) (ids, clear []string, want map[string]policy.Skip) {
	t.Helper()
	ctx := context.Background()
	var pool []string
	for _, b := range []string{"0001", "0002"} {
		for i := 1; i <= 10 && len(pool) < 12; i++ {
			pool = append(pool, "itm_"+b+"_"+twoDigits(i))
		}
	}
	code := "DECODE_FAILED"
	errMsg := "the file could not be decoded"
	kinds := []func(*policy.RawItem){
		clearable(12, "forward"), // 0: cleared
		clearable(30, "forward"), // 1: cleared
		func(it *policy.RawItem) { // 2: in error
			it.Status, it.RiskScore, it.Recommendation, it.ErrorCode, it.ErrorMessage, it.Layers = "error", nil, nil, &code, &errMsg, nil
		},
		clearable(140, "forward"), // 3: a score out of range: an invalid answer
		func(it *policy.RawItem) { // 4: pending
			it.Status, it.RiskScore, it.Recommendation, it.ErrorCode, it.ErrorMessage, it.Layers = "pending", nil, nil, nil, nil, nil
		},
		clearable(20, "reject"),  // 5: recommended reject
		clearable(25, "review"),  // 6: recommended review
		clearable(55, "forward"), // 7: above the low band
		clearable(10, "forward"), // 8: ben's reject awaits a second reviewer
		clearable(11, "forward"), // 9: ben cleared it
		clearable(13, "forward"), // 10: claimed by ben
		clearable(14, "forward"), // 11: an action of ana's waits on it
	}
	for i, id := range pool {
		if _, ok := tm.srv.Item(id); !ok {
			t.Fatalf("no item %s in the seed", id)
		}
		tm.srv.Touch(id, kinds[i])
	}
	if _, err := tm.ben.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		id      string
		o       policy.Outcome
		reason  string
		comment string
	}{{pool[8], policy.OutcomeReject, "DOC_TAMPERED", "the font differs"}, {pool[9], policy.OutcomeClear, "DOC_GENUINE", ""}} {
		if res, err := tm.ben.svc.Decisions.Decide(ctx, d.id, d.o, d.reason, d.comment); err != nil || res.Err != nil {
			t.Fatalf("ben decides %s: %+v %v %v", d.id, res.Action, res.Err, err)
		}
	}
	if _, err := tm.ben.svc.Team.Claim(ctx, pool[10], time.Hour); err != nil {
		t.Fatalf("ben claims %s: %v", pool[10], err)
	}
	if _, err := tm.ana.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Her escalation of the last one is queued, not sent: its one open action.
	offline := openConsole(t, "http://127.0.0.1:1", anaTok, tm.ana.path, tm.clk.Now)
	defer offline.close()
	if res, err := offline.svc.Decisions.Decide(ctx, pool[11], policy.OutcomeEscalate, "SENIOR_JUDGEMENT", "look again"); err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("her queued escalation: %+v %v", res.Action, err)
	}
	want = map[string]policy.Skip{
		pool[2]: policy.SkipNotChecked, pool[3]: policy.SkipInvalid, pool[4]: policy.SkipPending,
		pool[5]: policy.SkipRecommendReject, pool[6]: policy.SkipRecommendReview, pool[7]: policy.SkipNotLowBand,
		pool[8]: policy.SkipAwaitingConfirm, pool[9]: policy.SkipDecided, pool[10]: policy.SkipClaimed,
		pool[11]: policy.SkipActionOpen,
	}
	return pool, pool[:2], want
}

func twoDigits(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// TestABulkClearPlanLeavesOutWhatTheRuleSaysInWords: over items of every
// kind, the plan of a clear takes only the two scored low-band items
// recommended forward with no decision, no claim and no open action; each
// of the others is left out for its reason, said in words.
func TestABulkClearPlanLeavesOutWhatTheRuleSaysInWords(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	ids, clear, want := everyKind(t, tm)
	before := tm.srv.Arrivals(screenapi.EPDecision) // ben's two
	p, err := tm.ana.svc.Runs.PlanToConfirm(ctx, review.Selection{IDs: ids}, policy.ActionDecision)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := tm.ana.svc.Runs.EachPlanItem(ctx, p, func(it review.PlanItem) error { got = append(got, it.ItemID); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join(clear, ",") || p.Outcome != policy.OutcomeClear || p.PaidAnalyses() != 0 {
		t.Fatalf("the plan clears %v (%s), want %v", got, p.Outcome, clear)
	}
	// The window's plan holds each item left out, with its reason.
	wp, err := tm.ana.svc.Runs.PlanSummary(ctx, review.Selection{IDs: ids}, policy.ActionDecision)
	if err != nil {
		t.Fatal(err)
	}
	held, err := tm.ana.svc.Runs.PlanClear(ctx, review.Selection{IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	if len(held.Skipped) != len(want) {
		t.Fatalf("left out %+v, want %v", held.Skipped, want)
	}
	for _, s := range held.Skipped {
		if want[s.ItemID] != s.Reason {
			t.Errorf("%s left out for %q, want %q", s.ItemID, s.Reason, want[s.ItemID])
		}
	}
	lines := strings.Join(wp.SkipLines(), "; ")
	for _, words := range []string{
		"1 could not be checked (in error or awaiting a file): never cleared",
		"1 has no valid answer", "1 is still being analysed: not checked, never cleared",
		"1 was recommended reject", "1 was recommended review", "1 is above the low risk band",
		"1 has a decision awaiting a second reviewer", "1 already has a decision",
		"1 is claimed by ben", "1 already has an action waiting",
	} {
		if !strings.Contains(lines, words) {
			t.Errorf("the plan does not say %q: %s", words, lines)
		}
	}
	// The reason: one for the run, from the service's list, for a clear.
	if err := p.SetDecision("DOC_TAMPERED", ""); policy.ErrorCode(err) != policy.CodeValidationFailed {
		t.Fatalf("a reject's reason for a clear: %v", err)
	}
	if _, err := tm.ana.svc.Runs.Confirm(ctx, p); policy.ErrorCode(err) != policy.CodeValidationFailed {
		t.Fatalf("a plan without its reason confirmed: %v", err)
	}
	if tm.srv.Arrivals(screenapi.EPDecision) != before {
		t.Fatal("a decision reached the service")
	}
}

// TestABulkClearSendsOneDecisionPerItemOnce: confirmed, each item's clear
// goes through the outbox as one decision with its key and the revision
// planned; one is reset after the service recorded it; two flushes later
// each item holds exactly one final clear with the run's reason.
func TestABulkClearSendsOneDecisionPerItemOnce(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	ids, clear, _ := everyKind(t, tm)
	before := tm.srv.Arrivals(screenapi.EPDecision) // ben's two
	p, err := tm.ana.svc.Runs.PlanToConfirm(ctx, review.Selection{IDs: ids}, policy.ActionDecision)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetDecision("BENIGN_ARTEFACT", "  scan noise, checked by hand "); err != nil {
		t.Fatal(err)
	}
	run, err := tm.ana.svc.Runs.Confirm(ctx, p)
	if err != nil || run.Queued != len(clear) {
		t.Fatalf("confirmed %+v %v", run, err)
	}
	for _, a := range run.Actions {
		if a.Kind != policy.ActionDecision || a.Outcome != policy.OutcomeClear || a.ReasonCode != "BENIGN_ARTEFACT" ||
			a.Comment != "scan noise, checked by hand" || a.Key == "" {
			t.Fatalf("queued %+v", a)
		}
	}
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPDecision, Times: 1})
	res, err := tm.ana.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{Concurrency: 1})
	if err != nil || res.Progress.Unknown != 1 || res.Progress.Done != 1 {
		t.Fatalf("sent %+v %v", res.Progress, err)
	}
	for i := 0; i < 2; i++ {
		if _, err := tm.ana.svc.Actions.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	st, err := tm.ana.svc.Runs.RunState(ctx, run.ID)
	if err != nil || st.Progress.Done != len(clear) {
		t.Fatalf("after two flushes %+v %v", st.Progress, err)
	}
	for _, id := range clear {
		ds := tm.srv.Decisions(id)
		if len(ds) != 1 || ds[0].Outcome != "clear" || ds[0].State != "final" || ds[0].ReasonCode != "BENIGN_ARTEFACT" || ds[0].By != "ana" {
			t.Fatalf("%s at the service: %+v", id, ds)
		}
	}
	// Two sends and the reconciliation of the reset one with its key: three
	// arrivals for two decisions; the fourth is her escalation queued before
	// (everyKind), which the first flush sent.
	if n := tm.srv.Arrivals(screenapi.EPDecision) - before; n != 4 {
		t.Fatalf("%d decisions arrived", n)
	}
}

// TestABulkClearOfAnItemThatMovedSinceThePlanIsLeftOut: the revision
// planned is the one sent; an item changed since is left out, not cleared
// on what she did not see.
func TestABulkClearOfAnItemThatMovedSinceThePlanIsLeftOut(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	ids, clear, _ := everyKind(t, tm)
	p, err := tm.ana.svc.Runs.PlanClear(ctx, review.Selection{IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetDecision("DOC_GENUINE", ""); err != nil {
		t.Fatal(err)
	}
	tm.srv.Touch(clear[1], clearable(31, "forward"))
	if _, err := tm.ana.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	run, err := tm.ana.svc.Runs.Confirm(ctx, p)
	if err != nil || run.Queued != 1 || len(run.Refused) != 1 || run.Refused[0].ItemID != clear[1] ||
		!strings.Contains(run.Refused[0].Err.Error(), "changed since the plan") {
		t.Fatalf("confirmed %+v %v", run, err)
	}
}

// TestBulkClearUndoCancelsWhatWasNotSent: the service rate-limits the
// second clear (a 429, nothing run); the run stops with it queued, and the
// undo cancels it; nothing of it is sent afterwards.
func TestBulkClearUndoCancelsWhatWasNotSent(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	ids, clear, _ := everyKind(t, tm)
	before := tm.srv.Arrivals(screenapi.EPDecision)
	p, err := tm.ana.svc.Runs.PlanToConfirm(ctx, review.Selection{IDs: ids}, policy.ActionDecision)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetDecision("DOC_GENUINE", ""); err != nil {
		t.Fatal(err)
	}
	run, err := tm.ana.svc.Runs.Confirm(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	limited := false
	res, err := tm.ana.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{Concurrency: 1, Progress: func(pr review.RunProgress) {
		if pr.Done == 1 && !limited { // one in flight at a time: before the second starts
			limited = true
			tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPDecision, Times: 1, RetryAfter: "1"})
		}
	}})
	if err != nil || res.Progress.Done != 1 || res.Progress.Queued != 1 || res.Stopped == "" {
		t.Fatalf("sent %+v %q %v", res.Progress, res.Stopped, err)
	}
	cancelled, err := tm.ana.svc.Runs.CancelRun(ctx, run.ID)
	if err != nil || len(cancelled) != 1 {
		t.Fatalf("%d cancelled %v", len(cancelled), err)
	}
	tm.clk.Add(time.Minute) // past the wait
	if _, err := tm.ana.svc.Actions.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, id := range clear {
		sent += len(tm.srv.Decisions(id))
	}
	// Arrivals: the first clear, the 429, and her escalation queued before
	// (everyKind), which the flush sent.
	if sent != 1 || tm.srv.Arrivals(screenapi.EPDecision)-before != 3 {
		t.Fatalf("%d decisions at the service, %d arrivals", sent, tm.srv.Arrivals(screenapi.EPDecision)-before)
	}
}

// TestABulkClearOnA11ServiceIsRefusedInWords: a service that takes no
// decisions: the plan says so, and nothing is queued.
func TestABulkClearOnA11ServiceIsRefusedInWords(t *testing.T) {
	tm := setupTeam(t, screenapi.Version11)
	ctx := context.Background()
	id := undecidedAt(t, tm, policy.StatusScored, policy.RecommendForward)
	_, err := tm.ana.svc.Runs.PlanToConfirm(ctx, review.Selection{IDs: []string{id}}, policy.ActionDecision)
	if policy.ErrorCode(err) != policy.CodeNotOffered || !strings.Contains(err.Error(), "this service does not take decisions") {
		t.Fatalf("a bulk clear on 1.1: %v", err)
	}
	outboxEmpty(t, tm.ana)
}
