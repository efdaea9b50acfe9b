package review_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

var inError = review.Selection{Filter: store.ItemFilter{Status: policy.StatusError}}

// planned syncs and plans the re-submission of every item in error.
func planned(t *testing.T, e *env) review.Plan {
	t.Helper()
	e.sync(t)
	p, err := e.svc.Runs.PlanResubmit(context.Background(), inError)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) < 8 {
		t.Fatalf("the seeded service has only %d retryable items", len(p.Items))
	}
	return p
}

// checkEffects is the rule of a bulk run: every item of the plan ends with
// exactly one effect (done, one paid analysis), or still queued (none), or
// refused by the API with nothing run; and the paid analyses never exceed
// the confirmed count.
func checkEffects(t *testing.T, e *env, db *store.DB, p review.Plan, runID int64) map[policy.ActionState]int {
	t.Helper()
	ctx := context.Background()
	acts, err := db.Runs.RunActions(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != len(p.Items) {
		t.Fatalf("run holds %d actions for %d planned items", len(acts), len(p.Items))
	}
	states := map[policy.ActionState]int{}
	total := 0
	for _, a := range acts {
		states[a.State]++
		n := e.srv.Analyses(a.ItemID)
		total += n
		switch a.State {
		case policy.ActionDone:
			if n != 1 {
				t.Errorf("%s done with %d paid analyses", a.ItemID, n)
			}
		case policy.ActionQueued, policy.ActionCancelled:
			if n != 0 {
				t.Errorf("%s %s but analysed %d times", a.ItemID, a.State, n)
			}
		case policy.ActionFailed:
			if n != 0 || a.LastErrorCode != policy.CodeRateLimited {
				t.Errorf("%s failed with %s after %d analyses", a.ItemID, a.LastErrorCode, n)
			}
		case policy.ActionUnknown:
			if n > 1 {
				t.Errorf("%s unknown with %d analyses", a.ItemID, n)
			}
		default:
			t.Errorf("%s left %s", a.ItemID, a.State)
		}
	}
	if total > p.PaidAnalyses() {
		t.Fatalf("%d paid analyses for %d confirmed", total, p.PaidAnalyses())
	}
	return states
}

func TestBulkPlanSaysTheCostAndWhatItLeavesOut(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	all, _ := e.db.Items.Items(ctx, store.ItemFilter{Status: policy.StatusError})
	retryable, needFile := 0, 0
	for _, r := range all {
		if policy.Retryable(r.ErrorCode) {
			retryable++
		} else {
			needFile++
		}
	}
	// One item already has an action waiting; another is held by Ben.
	waiting := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	e.srv.Refuse()
	if res, err := e.svc.Actions.Resubmit(ctx, waiting); err != nil || res.Action.State != policy.ActionQueued {
		t.Fatal(res, err)
	}
	e.srv.Accept()
	held := e.srv.FindCode("INTERNAL_ERROR")
	me := e.svc.Team.Reviewer() // as the service named us (GET /v1/me)
	e.svc.SetClaimCheck(func(r store.ItemRow, who string, _ time.Time) string {
		if r.ID == held && who == me {
			return "Ben"
		}
		return ""
	})
	arrivals := e.srv.Arrivals(screenapi.EPResubmit)
	p, err := e.svc.Runs.PlanResubmit(ctx, inError)
	if err != nil {
		t.Fatal(err)
	}
	want := retryable - 2
	if len(p.Items) != want || p.PaidAnalyses() != want {
		t.Fatalf("plan of %d items (%d paid), want %d", len(p.Items), p.PaidAnalyses(), want)
	}
	if got := p.Headline(); got != fmt.Sprintf("Re-submit %d items: %d paid analyses", want, want) {
		t.Fatalf("headline %q", got)
	}
	lines := strings.Join(p.SkipLines(), "; ")
	for _, w := range []string{fmt.Sprintf("%d need a new file", needFile), "1 already has an action waiting", "1 is claimed by Ben"} {
		if !strings.Contains(lines, w) {
			t.Errorf("skip lines %q lack %q", lines, w)
		}
	}
	for _, it := range p.Items {
		if it.ItemID == waiting || it.ItemID == held || !policy.Retryable(it.Code) {
			t.Fatalf("planned %+v", it)
		}
	}
	if e.srv.Arrivals(screenapi.EPResubmit) != arrivals {
		t.Fatal("a plan made a call")
	}
	// A selection by ids: what is not in error says so.
	scored, _ := e.srv.Find(func(it policy.RawItem) bool { return it.Status == "scored" })
	sel, err := e.svc.Runs.PlanResubmit(ctx, review.Selection{IDs: []string{scored, waiting, p.Items[0].ItemID, "itm_nope"}})
	if err != nil || len(sel.Items) != 1 || strings.Join(sel.SkipLines(), "; ") != "1 already has an action waiting; 1 is not in error" {
		t.Fatalf("%+v %q %v", sel.Items, sel.SkipLines(), err)
	}
}

func TestBulkFileRequestsWithOneMessagePerCode(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	p, err := e.svc.Runs.PlanRequestFiles(ctx, inError)
	if err != nil || len(p.Items) < 3 || p.PaidAnalyses() != 0 || !strings.Contains(p.Headline(), "no paid analysis") {
		t.Fatalf("%+v %v", p, err)
	}
	if !strings.Contains(strings.Join(p.SkipLines(), ";"), "can be re-submitted instead") {
		t.Fatalf("%q", p.SkipLines())
	}
	for _, c := range p.Codes() {
		if p.Messages[c] != policy.Info(c).CustomerMessage {
			t.Fatalf("%s prefilled %q", c, p.Messages[c])
		}
	}
	if err := p.SetMessage(policy.CodeDecodeFailed, "Please send a sharper photo."); err != nil {
		t.Fatal(err)
	}
	if p.SetMessage(policy.CodeClassifierTimeout, "x") == nil || p.SetMessage(policy.CodeDecodeFailed, " ") == nil {
		t.Fatal("a message for a code not in the plan, or an empty one, was taken")
	}
	// Control and bidi characters never reach a customer: refused when the
	// message is set, and again when the plan is confirmed, however its
	// messages were changed, before anything is queued.
	if err := p.SetMessage(policy.CodeDecodeFailed, "Please\x1b]0;x\x07 send"); err == nil || !strings.Contains(err.Error(), "escape character") {
		t.Fatalf("an escape sequence was taken: %v", err)
	}
	sharp := p.Messages[policy.CodeDecodeFailed]
	p.Messages[policy.CodeDecodeFailed] = "Please send gpj.\u202eexe"
	if _, err := e.svc.Runs.Confirm(ctx, p); err == nil || policy.ErrorCode(err) != policy.CodeInvalidInput || !strings.Contains(err.Error(), "right-to-left override") {
		t.Fatalf("a bidi override was confirmed: %v", err)
	}
	if out, _ := e.svc.Actions.Outbox(ctx); len(out) != 0 {
		t.Fatalf("a refused plan queued %d actions", len(out))
	}
	p.Messages[policy.CodeDecodeFailed] = sharp
	run, err := e.svc.Runs.Confirm(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{})
	if err != nil || res.Progress.Done != len(p.Items) {
		t.Fatalf("%+v %v", res.Progress, err)
	}
	byItem := map[string]policy.Code{}
	for _, it := range p.Items {
		byItem[it.ItemID] = it.Code
	}
	for _, r := range res.Items {
		want := policy.Info(byItem[r.Action.ItemID]).CustomerMessage
		if byItem[r.Action.ItemID] == policy.CodeDecodeFailed {
			want = "Please send a sharper photo."
		}
		if r.Action.Message != want || e.srv.FileRequests(r.Action.ItemID) != 1 {
			t.Fatalf("%s: message %q, %d requests", r.Action.ItemID, r.Action.Message, e.srv.FileRequests(r.Action.ItemID))
		}
	}
	if e.srv.TotalAnalyses() != 0 {
		t.Fatal("a file request cost an analysis")
	}
}

// TestBulkLeavesOutWhatAnotherReviewerHolds runs on a 1.1 service with two
// reviewers: Ben's claim keeps his item out of Ana's plan, and a claim made
// between her plan and her confirmation keeps that one out of the run.
func TestBulkLeavesOutWhatAnotherReviewerHolds(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	held := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	if _, err := tm.ben.svc.Team.Claim(ctx, held, 15*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.ana.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	p, err := tm.ana.svc.Runs.PlanResubmit(ctx, inError)
	if err != nil || !strings.Contains(strings.Join(p.SkipLines(), "; "), "1 is claimed by ben") {
		t.Fatalf("%q %v", p.SkipLines(), err)
	}
	for _, it := range p.Items {
		if it.ItemID == held {
			t.Fatal("Ben's item is in Ana's plan")
		}
	}
	late := p.Items[0].ItemID
	if _, err := tm.ben.svc.Team.Claim(ctx, late, 15*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.ana.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	run, err := tm.ana.svc.Runs.Confirm(ctx, p)
	if err != nil || len(run.Refused) != 1 || run.Refused[0].ItemID != late || policy.ErrorCode(run.Refused[0].Err) != policy.CodeClaimed {
		t.Fatalf("refused %+v %v", run.Refused, err)
	}
	res, err := tm.ana.svc.Runs.SendRun(ctx, run.ID, review.RunOptions{})
	if err != nil || res.Progress.Done != len(p.Items)-1 {
		t.Fatalf("%+v %v", res.Progress, err)
	}
	if tm.srv.Analyses(held) != 0 || tm.srv.Analyses(late) != 0 || tm.srv.TotalAnalyses() != len(p.Items)-1 {
		t.Fatalf("analyses: held %d late %d total %d", tm.srv.Analyses(held), tm.srv.Analyses(late), tm.srv.TotalAnalyses())
	}
}

// A plan over the bulk limit is confirmed only with its count; its summary
// (what a dry run shows) and its items read in flat memory say the same as
// the plan that holds them.
func TestAPlanOverTheBulkLimitNeedsItsCount(t *testing.T) {
	e := setup(t)
	p := planned(t, e)
	ctx := context.Background()
	if _, err := e.svc.With(func(c *review.Config) { c.BulkMax = -1 }); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a bulk limit of -1: %v", err)
	}
	e.with(t, func(c *review.Config) { c.BulkMax = len(p.Items) - 1 })
	p, err := e.svc.Runs.PlanResubmit(ctx, inError)
	if err != nil || !p.NeedsCount() {
		t.Fatalf("a plan of %d over a limit of %d: needs its count %v, %v", len(p.Items), p.Max, p.NeedsCount(), err)
	}
	sum, err := e.svc.Runs.PlanSummary(ctx, inError, policy.ActionResubmit)
	if err != nil || sum.Items != nil || sum.Len() != len(p.Items) || sum.Headline() != p.Headline() ||
		strings.Join(sum.SkipLines(), ";") != strings.Join(p.SkipLines(), ";") || !sum.NeedsCount() {
		t.Fatalf("summary %q %v, plan %q %v: %v", sum.Headline(), sum.SkipLines(), p.Headline(), p.SkipLines(), err)
	}
	var streamed []string
	e.svc.Runs.EachPlanned(ctx, inError, policy.ActionResubmit, func(it review.PlanItem) error {
		streamed = append(streamed, it.ItemID)
		return nil
	})
	for i, it := range p.Items {
		if i >= len(streamed) || streamed[i] != it.ItemID {
			t.Fatalf("the streamed items differ from the plan's at %d", i)
		}
	}
	if _, err := e.svc.Runs.Confirm(ctx, p); policy.ErrorCode(err) != policy.CodeInvalidInput || !strings.Contains(err.Error(), "bulk limit") {
		t.Fatalf("confirmed over the limit without its count: %v", err)
	}
	if acts, _ := e.db.Outbox.Outbox(ctx); len(acts) != 0 {
		t.Fatalf("%d queued", len(acts))
	}
	p.CountConfirmed = len(p.Items)
	run, err := e.svc.Runs.Confirm(ctx, p)
	if err != nil || len(run.Actions) != len(p.Items) {
		t.Fatalf("with its count: %d queued: %v", len(run.Actions), err)
	}
}
