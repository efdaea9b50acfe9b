package review_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// Decisions with four eyes (contract 1.2), through the outbox, on a real
// cache and the reference service on loopback.

// undecidedAt is an item of the status (and, for a scored one, the
// recommendation) that has no decision at the service, as ana's cache
// holds it.
func undecidedAt(t *testing.T, tm *team, status policy.Status, rec policy.Recommendation) string {
	t.Helper()
	rows, err := tm.ana.db.Items.Items(context.Background(), store.ItemFilter{Status: status})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if (rec == "" || r.Recommendation == rec) && len(tm.srv.Decisions(r.ID)) == 0 && r.CurrentDecision() == nil {
			return r.ID
		}
	}
	t.Fatalf("no undecided %s item recommended %q", status, rec)
	return ""
}

func outboxEmpty(t *testing.T, c *console) {
	t.Helper()
	if open, err := c.svc.Actions.Outbox(context.Background()); err != nil || len(open) != 0 {
		t.Fatalf("the outbox holds %+v (%v): something was queued", open, err)
	}
}

func needsHer(t *testing.T, c *console, id string) bool {
	t.Helper()
	views, err := c.svc.Triage.Items(context.Background(), store.ItemFilter{NeedsAction: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		if v.ID == id {
			if !v.NeedsReviewer() {
				t.Fatalf("%s is listed as needing %s, but its view says not", id, c.svc.Team.Reviewer())
			}
			return true
		}
	}
	return false
}

// TestAnUncheckedItemIsNeverCleared: an item in error, an invalid answer
// and a pending item are refused a clear before anything is queued, and
// no request reaches the service.
func TestAnUncheckedItemIsNeverCleared(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	for _, st := range []policy.Status{policy.StatusError, policy.StatusInvalid, policy.StatusPending} {
		id := undecidedAt(t, tm, st, "")
		_, err := tm.ana.svc.Decisions.Decide(ctx, id, policy.OutcomeClear, "DOC_GENUINE", "")
		if policy.ErrorCode(err) != policy.CodeNotChecked || !strings.Contains(err.Error(), "cannot be cleared") {
			t.Errorf("%s item %s cleared: %v", st, id, err)
		}
	}
	outboxEmpty(t, tm.ana)
	if n := tm.srv.Arrivals(screenapi.EPDecision); n != 0 {
		t.Fatalf("%d decisions reached the service", n)
	}
}

// TestFourEyes: her reject waits for a second reviewer; she cannot confirm
// it herself (refused before any call), a return needs a comment, and
// another reviewer, whom it needs, confirms it. Both caches and audits
// follow.
func TestFourEyes(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	id := undecidedAt(t, tm, policy.StatusScored, policy.RecommendReject)
	if !needsHer(t, tm.ana, id) {
		t.Fatalf("an undecided item recommended reject does not need ana")
	}
	// Refused before anything is queued: no comment, a reason for another outcome.
	if _, err := tm.ana.svc.Decisions.Decide(ctx, id, policy.OutcomeReject, "DOC_TAMPERED", " "); policy.ErrorCode(err) != policy.CodeValidationFailed {
		t.Fatalf("a reject without a comment: %v", err)
	}
	if _, err := tm.ana.svc.Decisions.Decide(ctx, id, policy.OutcomeReject, "DOC_GENUINE", "why"); policy.ErrorCode(err) != policy.CodeValidationFailed {
		t.Fatalf("a clear's reason given to a reject: %v", err)
	}
	outboxEmpty(t, tm.ana)
	res, err := tm.ana.svc.Decisions.Decide(ctx, id, policy.OutcomeReject, "DOC_TAMPERED", "MRZ check digits do not match")
	if err != nil || res.Err != nil || res.Action.State != policy.ActionDone || res.Action.Kind != policy.ActionDecision {
		t.Fatalf("ana's reject: %+v %v %v", res.Action, res.Err, err)
	}
	if d := res.Item.CurrentDecision(); d == nil || d.State != policy.DecisionAwaiting || d.By != "ana" {
		t.Fatalf("the answer's decision %+v", d)
	}
	if needsHer(t, tm.ana, id) {
		t.Fatal("her own reject awaiting confirmation needs her")
	}
	if _, err := tm.ana.svc.Decisions.Confirm(ctx, id, true, ""); policy.ErrorCode(err) != policy.CodeSameReviewer {
		t.Fatalf("the author confirms: %v", err)
	}
	outboxEmpty(t, tm.ana)
	if n := tm.srv.Arrivals(screenapi.EPConfirmation); n != 0 {
		t.Fatalf("%d confirmations reached the service", n)
	}
	if _, err := tm.ben.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !needsHer(t, tm.ben, id) {
		t.Fatal("ana's reject awaiting confirmation does not need ben")
	}
	if _, err := tm.ben.svc.Decisions.Confirm(ctx, id, false, ""); policy.ErrorCode(err) != policy.CodeValidationFailed {
		t.Fatalf("a return without a comment: %v", err)
	}
	res, err = tm.ben.svc.Decisions.Confirm(ctx, id, true, "agreed, the MRZ is off")
	if err != nil || res.Err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ben confirms: %+v %v %v", res.Action, res.Err, err)
	}
	ds := tm.srv.Decisions(id)
	if len(ds) != 1 || ds[0].State != "final" || ds[0].ConfirmedBy != "ben" || !ds[0].Agree {
		t.Fatalf("at the service: %+v", ds)
	}
	if needsHer(t, tm.ben, id) {
		t.Fatal("a final decision still needs ben")
	}
	d, err := tm.ben.svc.Triage.Item(ctx, id)
	if err != nil || len(d.Decisions) != 1 || d.Decisions[0].Confirmation == nil || d.Decisions[0].Confirmation.By != "ben" {
		t.Fatalf("ben's cache: %+v %v", d.Decisions, err)
	}
	var audited []string
	for _, e := range d.Audit {
		if strings.HasPrefix(e.Event, "decision") || strings.HasPrefix(e.Event, "confirmation") {
			audited = append(audited, e.Reviewer+": "+e.Event)
		}
	}
	want := fmt.Sprint([]string{"ben: decision " + ds[0].ID + " confirmed", "ben: confirmation requested", "ana: decision " + ds[0].ID + ": reject (awaiting_confirmation)"})
	if fmt.Sprint(audited) != want {
		t.Fatalf("ben's audit %v, want %v", audited, want)
	}
}

// TestADecisionTakenOfflineHasOneEffect: offline, her decision is queued
// with its key; two flushes later, the service holds one decision.
func TestADecisionTakenOfflineHasOneEffect(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	id := undecidedAt(t, tm, policy.StatusScored, policy.RecommendReview)
	offline := openConsole(t, "http://127.0.0.1:1", anaTok, tm.ana.path, tm.clk.Now) // nothing listens there
	defer offline.close()
	// The reason list the last sync kept is what she decides with offline.
	list, stale, err := offline.svc.Decisions.ReasonCodes(ctx)
	if err != nil || !stale || len(list) != len(screenapi.DemoReasonCodes()) {
		t.Fatalf("offline reason codes: %d, offline %v, %v", len(list), stale, err)
	}
	if _, err := offline.svc.Decisions.Decide(ctx, id, policy.OutcomeClear, "NOT_A_CODE", ""); policy.ErrorCode(err) != policy.CodeValidationFailed {
		t.Fatalf("a code the kept list does not hold: %v", err)
	}
	res, err := offline.svc.Decisions.Decide(ctx, id, policy.OutcomeEscalate, "SENIOR_JUDGEMENT", "not sure about the hologram")
	if err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("offline: %+v %v", res.Action, err)
	}
	// One open action: a second decision is refused.
	if _, err := offline.svc.Decisions.Decide(ctx, id, policy.OutcomeClear, "DOC_GENUINE", ""); policy.ErrorCode(err) != policy.CodeActionOpen {
		t.Fatalf("a second decision beside a queued one: %v", err)
	}
	for i := 0; i < 2; i++ {
		if _, err := tm.ana.svc.Actions.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	a, err := tm.ana.db.Outbox.Action(ctx, res.Action.ID)
	if err != nil || a.State != policy.ActionDone || tm.srv.Arrivals(screenapi.EPDecision) != 1 {
		t.Fatalf("after two flushes: %+v %v", a, err)
	}
	if ds := tm.srv.Decisions(id); len(ds) != 1 || ds[0].Outcome != "escalate" || ds[0].State != "final" {
		t.Fatalf("at the service: %+v", ds)
	}
	// A queued decision can be cancelled; a sent one cannot.
	if _, err := tm.ana.svc.Actions.Cancel(ctx, a.ID); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("a done decision cancelled: %v", err)
	}
}

// TestADecisionResetAfterTheServiceRecordedItIsReconciledWithItsKey: the
// service records the decision and the connection is reset before its
// answer: unknown, then reconciled with the same key, one decision.
func TestADecisionResetAfterTheServiceRecordedItIsReconciledWithItsKey(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	id := undecidedAt(t, tm, policy.StatusScored, policy.RecommendReject)
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPDecision, Times: 1})
	res, err := tm.ana.svc.Decisions.Decide(ctx, id, policy.OutcomeClear, "BENIGN_ARTEFACT", "glare on the laminate")
	if err != nil || res.Action.State != policy.ActionUnknown {
		t.Fatalf("after the reset: %+v %v", res.Action, err)
	}
	if _, err := tm.ana.svc.Actions.Cancel(ctx, res.Action.ID); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("an unknown decision cancelled: %v", err)
	}
	fr, err := tm.ana.svc.Actions.Flush(ctx)
	if err != nil || fr.Done != 1 || fr.Results[0].Action.Key != res.Action.Key {
		t.Fatalf("flush %+v %v", fr, err)
	}
	ds := tm.srv.Decisions(id)
	if len(ds) != 1 || ds[0].State != "awaiting_confirmation" || tm.srv.Arrivals(screenapi.EPDecision) != 2 {
		t.Fatalf("at the service %+v after %d arrivals", ds, tm.srv.Arrivals(screenapi.EPDecision))
	}
}

// TestTwoReviewersOneDecisionAndA412InWords: ben decides first; ana, from
// what she saw, is refused with ITEM_CHANGED and told what ben decided;
// nothing is overruled.
func TestTwoReviewersOneDecisionAndA412InWords(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	ctx := context.Background()
	id := undecidedAt(t, tm, policy.StatusScored, policy.RecommendReview)
	if _, err := tm.ben.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := tm.ben.svc.Decisions.Decide(ctx, id, policy.OutcomeReject, "PHOTO_MISMATCH", "not the same person"); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ben: %+v %v", res.Action, err)
	}
	res, err := tm.ana.svc.Decisions.Decide(ctx, id, policy.OutcomeClear, "DOC_GENUINE", "")
	if err != nil {
		t.Fatal(err)
	}
	ce := conflict(t, res.Err, policy.CodeItemChanged)
	if res.Action.State != policy.ActionFailed || !strings.Contains(ce.Sentence, "Ben decided reject (PHOTO_MISMATCH)") {
		t.Fatalf("ana's clear: %+v, told %q", res.Action, ce.Sentence)
	}
	if ds := tm.srv.Decisions(id); len(ds) != 1 || ds[0].By != "ben" {
		t.Fatalf("at the service: %+v", ds)
	}
	// Her cache now holds ben's reject: it awaits her confirmation.
	if !needsHer(t, tm.ana, id) {
		t.Fatal("ben's reject does not need ana after the 412")
	}
}

// TestA11ServiceIsToldInWords: a service that takes no decisions is said
// so, before anything is queued.
func TestA11ServiceIsToldInWords(t *testing.T) {
	tm := setupTeam(t, screenapi.Version11)
	ctx := context.Background()
	id := undecidedAt(t, tm, policy.StatusScored, policy.RecommendReview)
	_, err := tm.ana.svc.Decisions.Decide(ctx, id, policy.OutcomeClear, "DOC_GENUINE", "")
	if policy.ErrorCode(err) != policy.CodeNotOffered || !strings.Contains(err.Error(), "this service does not take decisions") {
		t.Fatalf("a decision on 1.1: %v", err)
	}
	if _, err := tm.ana.svc.Decisions.Confirm(ctx, id, true, ""); policy.ErrorCode(err) != policy.CodeNotOffered {
		t.Fatalf("a confirmation on 1.1: %v", err)
	}
	if _, _, err := tm.ana.svc.Decisions.ReasonCodes(ctx); policy.ErrorCode(err) != policy.CodeNotOffered {
		t.Fatalf("reason codes on 1.1: %v", err)
	}
	outboxEmpty(t, tm.ana)
	if needsHer(t, tm.ana, id) {
		t.Fatal("a scored item needs her on 1.1")
	}
}

func init() {
	teamHelpers["team-decide"] = func() int {
		c := openConsole(&testing.T{}, os.Getenv("REVIEW_URL"), os.Getenv("REVIEW_TOKEN"), os.Getenv("REVIEW_DB"), nil)
		defer c.close()
		res, err := c.svc.Decisions.Decide(context.Background(), os.Getenv("REVIEW_ITEM"), policy.OutcomeReject, "DOC_TAMPERED", "edited")
		fmt.Println(res.Action.State, err)
		return 0
	}
}

// TestADecisionKilledDuringItsSendIsRecordedOnce: the service records the
// decision and the process dies before the answer; after the restart a
// flush takes the lapsed lease over and reconciles with the same key.
func TestADecisionKilledDuringItsSendIsRecordedOnce(t *testing.T) {
	tm := setupTeam(t, screenapi.Version12)
	id := undecidedAt(t, tm, policy.StatusScored, policy.RecommendReject)
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultHangAfter, Endpoint: screenapi.EPDecision, Times: 1})
	tm.ana.close()
	cmd := teamHelper(tm, tm.ana, anaTok, "team-decide", id, time.Now())
	cmd.Env = append(cmd.Env, "REVIEW_CLIENT_TIMEOUT=60s")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for len(tm.srv.Decisions(id)) == 0 {
		select {
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("the decision never reached the service")
		case <-time.After(5 * time.Millisecond):
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	if err := cmd.Wait(); err == nil {
		t.Fatal("the helper was not killed")
	}
	later := func() time.Time { return time.Now().Add(time.Hour) }
	again := openConsole(t, tm.srv.URL(), anaTok, tm.ana.path, later)
	defer again.close()
	fr, err := again.svc.Actions.Flush(context.Background())
	if err != nil || fr.Done != 1 || fr.Results[0].Action.Sends != 2 || fr.Results[0].Action.Kind != policy.ActionDecision {
		t.Fatalf("%+v %v", fr, err)
	}
	if ds := tm.srv.Decisions(id); len(ds) != 1 || ds[0].By != "ana" {
		t.Fatalf("at the service: %+v", ds)
	}
	d, err := again.svc.Triage.Item(context.Background(), id)
	if err != nil || len(d.Decisions) != 1 {
		t.Fatalf("the cache: %+v %v", d.Decisions, err)
	}
}

var _ = review.Result{}
