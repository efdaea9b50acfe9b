package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// setupDecisions is setupTeam on a 1.2 service, with ana's sleeper in the
// test's hands (to bring a refusing service back during the one retry).
func setupDecisions(t *testing.T) (*screenapi.Server, *client.Client, *client.Client, *sleeper) {
	t.Helper()
	srv, _, ben := setupTeam(t, screenapi.Version12)
	cfg := testConfig(srv.URL())
	cfg.Token = client.Secret(anaToken)
	sl := &sleeper{}
	ana, err := client.New(cfg, client.WithSleep(sl.sleep))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ana.Close)
	return srv, ana, ben, sl
}

// undecidedItem is a scored item recommended rec with no decision yet.
func undecidedItem(t *testing.T, srv *screenapi.Server, rec string) string {
	t.Helper()
	var ids []string
	srv.Find(func(it policy.RawItem) bool {
		if it.Status == "scored" && it.RiskScore != nil && *it.RiskScore <= 100 && it.Recommendation != nil && *it.Recommendation == rec {
			ids = append(ids, it.ID)
		}
		return false
	})
	for _, id := range ids {
		if len(srv.Decisions(id)) == 0 {
			return id
		}
	}
	t.Fatalf("no undecided item recommended %s", rec)
	return ""
}

func TestDecideAndConfirmOnceEach(t *testing.T) {
	srv, ana, ben, _ := setupDecisions(t)
	ctx := context.Background()
	id := undecidedItem(t, srv, "review")
	rev := srv.Revision(id)
	it, attempts, err := ana.Decide(ctx, id, "dec-key", policy.OutcomeReject, "DOC_TAMPERED", "MRZ digits differ", client.IfMatch(rev))
	if err != nil || len(attempts) != 1 {
		t.Fatalf("%v %d", err, len(attempts))
	}
	d := it.CurrentDecision()
	if d == nil || d.State != policy.DecisionAwaiting || d.By != "ana" || d.Outcome != policy.OutcomeReject ||
		d.ReasonCode != "DOC_TAMPERED" || d.Comment != "MRZ digits differ" || it.Team.Revision != rev+1 || !it.Team.DecisionsOffered {
		t.Fatalf("decided item %+v", it)
	}
	// A repeat with the same key returns the stored answer; one decision.
	again, _, err := ana.Decide(ctx, id, "dec-key", policy.OutcomeReject, "DOC_TAMPERED", "MRZ digits differ", client.IfMatch(rev))
	if err != nil || again.CurrentDecision().ID != d.ID || len(srv.Decisions(id)) != 1 {
		t.Fatalf("repeat: %v %+v", err, srv.Decisions(id))
	}
	// Never by its author: a typed refusal.
	_, _, err = ana.Confirm(ctx, id, d.ID, "conf-ana", true, "")
	e := mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeSameReviewer)
	if _, ok := client.AsDecisionRefusal(e); !ok {
		t.Fatal("SAME_REVIEWER is a decision refusal")
	}
	// A return needs a comment (the service says so too).
	_, _, err = ben.Confirm(ctx, id, d.ID, "conf-ben-0", false, "")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeValidationFailed)
	// A stale If-Match: 412 with the item as it is now.
	_, _, err = ben.Confirm(ctx, id, d.ID, "conf-ben-1", true, "", client.IfMatch(rev))
	if c, ok := client.AsConflict(err); !ok || c.Code != policy.CodeItemChanged || c.Item == nil || c.Item.CurrentDecision() == nil {
		t.Fatalf("stale confirmation: %v", err)
	}
	it, _, err = ben.Confirm(ctx, id, d.ID, "conf-ben-2", true, "agreed", client.IfMatch(rev+1))
	if err != nil {
		t.Fatal(err)
	}
	if d := it.CurrentDecision(); d.State != policy.DecisionFinal || d.Confirmation == nil || d.Confirmation.By != "ben" || !d.Confirmation.Agree {
		t.Fatalf("confirmed %+v", d)
	}
	// Only while awaiting.
	_, _, err = ben.Confirm(ctx, id, d.ID, "conf-ben-3", true, "")
	e = mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeNotAwaitingConfirmation)
	if e.Item == nil || e.Item.ID != id {
		t.Fatalf("NOT_AWAITING_CONFIRMATION carries the item: %+v", e)
	}
	if srv.Arrivals(screenapi.EPDecision) != 2 || srv.Arrivals(screenapi.EPConfirmation) != 5 {
		t.Fatalf("arrivals %d %d", srv.Arrivals(screenapi.EPDecision), srv.Arrivals(screenapi.EPConfirmation))
	}
}

func TestAnUncheckedItemIsRefusedClearingAsATypedError(t *testing.T) {
	srv, ana, _, _ := setupDecisions(t)
	ctx := context.Background()
	for _, c := range []struct {
		code    string
		outcome policy.Outcome
		want    policy.Code
	}{
		{"DECODE_FAILED", policy.OutcomeClear, policy.CodeNotChecked},
		{"CLASSIFIER_TIMEOUT", policy.OutcomeClear, policy.CodeNotChecked},
	} {
		id := srv.FindCode(c.code)
		_, _, err := ana.Decide(ctx, id, "k-"+c.code, c.outcome, "DOC_GENUINE", "")
		e := mustClientErr(t, err, client.ClassAnsweredNo, c.want)
		if r, ok := client.AsDecisionRefusal(err); !ok || r.Item == nil || r.Item.Status != policy.StatusError || r.Item.Checked() {
			t.Fatalf("%s: %+v", c.code, e)
		}
	}
	pending, _ := srv.Find(func(it policy.RawItem) bool { return it.Status == "pending" })
	_, _, err := ana.Decide(ctx, pending, "k-pending", policy.OutcomeReject, "DOC_TAMPERED", "x")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeNotDecidable)
	if _, ok := client.AsConflict(err); ok {
		t.Fatal("a decision refusal is not a conflict")
	}
}

func TestDecideRetriesOnlyWhenNoConnectionWasMade(t *testing.T) {
	srv, ana, _, sl := setupDecisions(t)
	ctx := context.Background()
	id := undecidedItem(t, srv, "review")
	srv.Refuse()
	sl.hook = func() { _ = srv.Accept() }
	it, attempts, err := ana.Decide(ctx, id, "k1", policy.OutcomeClear, "DOC_GENUINE", "")
	if err != nil || len(attempts) != 2 || attempts[0].Class != client.ClassNotConnected || len(sl.count()) != 1 {
		t.Fatalf("%v attempts %+v waits %v", err, attempts, sl.count())
	}
	if it.CurrentDecision() == nil || it.CurrentDecision().State != policy.DecisionFinal || len(srv.Decisions(id)) != 1 {
		t.Fatalf("%+v", srv.Decisions(id))
	}
	// A reset after the service recorded it: unknown, never retried; the
	// same key then returns what was recorded, once.
	sl.hook = nil
	other := undecidedItem(t, srv, "reject")
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPDecision, Times: 1})
	_, attempts, err = ana.Decide(ctx, other, "k2", policy.OutcomeClear, "VERIFIED_ELSEWHERE", "called the issuer")
	mustClientErr(t, err, client.ClassUnknown, policy.CodeOutcomeUnknown)
	if len(attempts) != 1 || len(sl.count()) != 1 {
		t.Fatalf("a request that went out was retried: %d attempts", len(attempts))
	}
	it, _, err = ana.Decide(ctx, other, "k2", policy.OutcomeClear, "VERIFIED_ELSEWHERE", "called the issuer")
	if err != nil || len(srv.Decisions(other)) != 1 || it.CurrentDecision().State != policy.DecisionAwaiting {
		t.Fatalf("reconciled: %v %+v", err, srv.Decisions(other))
	}
}

func TestAnAnswerWithABrokenDecisionIsNeverDecided(t *testing.T) {
	srv, ana, _, _ := setupDecisions(t)
	id := undecidedItem(t, srv, "review")
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultBrokenItem, Endpoint: screenapi.EPDecision, Times: 1})
	it, _, err := ana.Decide(context.Background(), id, "k1", policy.OutcomeClear, "DOC_GENUINE", "")
	if err != nil || it.Status != policy.StatusInvalid || it.CurrentDecision() != nil || it.Checked() {
		t.Fatalf("%v %+v", err, it)
	}
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultEmpty, Endpoint: screenapi.EPDecision, Times: 1})
	_, _, err = ana.Decide(context.Background(), id, "k2", policy.OutcomeClear, "DOC_GENUINE", "")
	if e, ok := client.AsError(err); !ok || e.Class == client.ClassOK || e.Class == client.ClassAnsweredNo {
		t.Fatalf("an empty answer to a decision: %v", err)
	}
}

func TestReasonCodes(t *testing.T) {
	srv, ana, _, _ := setupDecisions(t)
	list, _, err := ana.ReasonCodes(context.Background())
	if err != nil || len(list) != len(screenapi.DemoReasonCodes()) {
		t.Fatalf("%v %+v", err, list)
	}
	for _, rc := range list {
		if rc.Code == "DOC_TAMPERED" && (!rc.Allows(policy.OutcomeReject) || rc.Allows(policy.OutcomeClear) || rc.Label == "") {
			t.Fatalf("%+v", rc)
		}
	}
	srv.SetReasonCodes([]screenapi.ReasonCode{{Code: "A", Label: "a", Outcomes: []string{"reject", "approve"}},
		{Code: "../x", Label: "path", Outcomes: []string{"reject"}}, {Code: "B", Outcomes: []string{"approve"}},
		{Code: "A", Label: "again", Outcomes: []string{"clear"}}, {Code: "C", Outcomes: []string{"escalate"}}})
	list, _, err = ana.ReasonCodes(context.Background())
	if err != nil || len(list) != 2 || list[0].Code != "A" || len(list[0].Outcomes) != 1 || list[1].Code != "C" || list[1].Label != "C" {
		t.Fatalf("a hostile list: %v %+v", err, list)
	}
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultMalformed, Endpoint: screenapi.EPReasonCodes, Times: 1})
	_, _, err = ana.ReasonCodes(context.Background())
	mustClientErr(t, err, client.ClassBadAnswer, policy.CodeInvalidResponse)
}

func TestA11ServiceTakesNoDecisions(t *testing.T) {
	srv, ana, _ := setupTeam(t, screenapi.Version11)
	ctx := context.Background()
	_, _, err := ana.ReasonCodes(ctx)
	if !client.IsNotOffered(err) {
		t.Fatalf("reason codes on 1.1: %v", err)
	}
	id := undecidedItem(t, srv, "review")
	it, _, err := ana.GetItem(ctx, id)
	if err != nil || it.Team.DecisionsOffered || it.CurrentDecision() != nil {
		t.Fatalf("a 1.1 item: %v %+v", err, it.Team)
	}
	_, _, err = ana.Decide(ctx, id, "k", policy.OutcomeClear, "DOC_GENUINE", "")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeNotFound)
	_, _, err = ana.Confirm(ctx, id, "../x", "k2", true, "")
	if !errors.Is(err, client.ErrUnsafeID) || srv.Arrivals(screenapi.EPConfirmation) != 0 {
		t.Fatalf("an unsafe decision id must not be sent: %v", err)
	}
}

// An answer to a decision that carries none is no answer for the key: a
// bad answer (the workflow reconciles it), never a decided item.
func TestAnAnswerWithoutTheDecisionIsABadAnswer(t *testing.T) {
	c, n := servePage(t, goodItem)
	_, _, err := c.Decide(context.Background(), "itm_good", "k1", policy.OutcomeClear, "DOC_GENUINE", "")
	mustClientErr(t, err, client.ClassBadAnswer, policy.CodeInvalidResponse)
	_, _, err = c.Confirm(context.Background(), "itm_good", "dec_1", "k2", true, "")
	mustClientErr(t, err, client.ClassBadAnswer, policy.CodeInvalidResponse)
	if n.Load() != 2 {
		t.Fatalf("a bad answer was retried: %d requests", n.Load())
	}
}

// A sync that brings an item with a decision the console cannot read keeps
// the item invalid, with its text, never decided; its neighbours stand.
func TestASyncedDecisionInAnUnknownStateIsAnInvalidItem(t *testing.T) {
	decided := strings.Replace(goodItem, `"attempt":1`, `"attempt":1,"decisions":[`+
		`{"id":"dec_1","outcome":"clear","reason_code":"DOC_GENUINE","by":"ana","at":"2026-11-29T10:00:00Z","state":"final","confirmation":null}]`, 1)
	broken := strings.NewReplacer(`"itm_good"`, `"itm_bad"`, `"state":"final"`, `"state":"approved"`).Replace(decided)
	page := `{"batches":[{"id":"bat_1","customer_ref":"C","created_at":"2026-11-29T09:00:00Z","updated_at":"2026-11-29T10:05:00Z","items":[` +
		decided + `,` + broken + `]}],"next_cursor":null}`
	c, _ := servePage(t, page)
	p, _, err := c.ListBatches(context.Background(), time.Time{}, "", 0)
	if err != nil || len(p.Batches) != 1 || len(p.Batches[0].Items) != 2 {
		t.Fatalf("%v %+v", err, p)
	}
	good, bad := p.Batches[0].Items[0], p.Batches[0].Items[1]
	if d := good.CurrentDecision(); good.Status != policy.StatusScored || d == nil || d.State != policy.DecisionFinal || d.Outcome != policy.OutcomeClear {
		t.Fatalf("good: %+v", good)
	}
	if bad.Status != policy.StatusInvalid || bad.CurrentDecision() != nil || bad.Checked() || !strings.Contains(bad.Problem, "approved") || bad.Raw == "" {
		t.Fatalf("bad: %+v", bad)
	}
}
