package policy_test

import (
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// TestEveryKindIsOneDescriptor: each kind of action has one descriptor
// with its words, its rule and its command, and the words and the cost
// the console shows come from it.
func TestEveryKindIsOneDescriptor(t *testing.T) {
	seen := map[policy.ActionKind]bool{}
	for _, d := range policy.ActionKinds() {
		if seen[d.Kind] || d.Word == "" || d.Check == nil || d.Command == "" || d.Endpoint == "" {
			t.Errorf("descriptor %+v: a kind twice, or a field missing", d)
		}
		seen[d.Kind] = true
		if policy.ActionWord(d.Kind) != d.Word || d.Kind.Paid() != d.Paid {
			t.Errorf("%s: ActionWord %q, Paid %v; the descriptor says %q, %v", d.Kind, policy.ActionWord(d.Kind), d.Kind.Paid(), d.Word, d.Paid)
		}
		if k, ok := policy.KindForCommand(d.Command); !ok || k != d.Kind {
			t.Errorf("command %s names %q", d.Command, k)
		}
	}
	for k, paid := range map[policy.ActionKind]bool{policy.ActionResubmit: true, policy.ActionReplacement: true, policy.ActionFileRequest: false} {
		if !seen[k] || k.Paid() != paid {
			t.Errorf("%s: described %v, paid %v", k, seen[k], k.Paid())
		}
	}
	if policy.ActionWord("note") != "action" || policy.ActionKind("note").Paid() {
		t.Error("a kind without a descriptor has words or a cost")
	}
}

// TestAFileRequestDoneAwaitsTheFile: the service answers a file request
// with the request, not the item; the item after it is policy's rule:
// awaiting the file, its error gone, one change on the revision sent.
func TestAFileRequestDoneAwaitsTheFile(t *testing.T) {
	d, _ := policy.DescribeKind(policy.ActionFileRequest)
	at := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	before := policy.Item{ID: "itm_1", Status: policy.StatusError, ErrorCode: policy.CodeDecodeFailed, ErrorMessage: "bad", UpdatedAt: at.Add(-time.Hour)}
	before.Revision = 4
	it := d.AfterDone(before, 4, at)
	if it.Status != policy.StatusAwaitingFile || it.ErrorCode != "" || it.ErrorMessage != "" || it.Revision != 5 || !it.UpdatedAt.Equal(at) {
		t.Fatalf("after a file request: %+v", it)
	}
	// No If-Match sent (a 1.0 service, a replay-only send): the cached
	// revision stands; an answer older than the cache does not move it back.
	for _, sent := range []int64{0, -1} {
		if it := d.AfterDone(before, sent, at.Add(-2*time.Hour)); it.Revision != 4 || !it.UpdatedAt.Equal(before.UpdatedAt) {
			t.Errorf("sent %d: %+v", sent, it)
		}
	}
	for _, k := range []policy.ActionKind{policy.ActionResubmit, policy.ActionReplacement} {
		if d, _ := policy.DescribeKind(k); d.AfterDone != nil {
			t.Errorf("%s is answered with the item, yet has an AfterDone", k)
		}
	}
}

// TestDecisionKindsJudgeByTheirIntent: a decision and a confirmation are
// two rows of the table, judged by CanDecide, CheckReason and CanConfirm
// through the descriptor (Allowed), never by a switch of their own.
func TestDecisionKindsJudgeByTheirIntent(t *testing.T) {
	dec, ok1 := policy.DescribeKind(policy.ActionDecision)
	conf, ok2 := policy.DescribeKind(policy.ActionConfirmation)
	if !ok1 || !ok2 || dec.Paid || conf.Paid || !dec.IfMatch || !conf.IfMatch || dec.Judge == nil || conf.Judge == nil {
		t.Fatalf("decision %+v, confirmation %+v", dec, conf)
	}
	reasons := []policy.ReasonCode{{Code: "OK", Label: "fine", Outcomes: []policy.Outcome{policy.OutcomeClear}},
		{Code: "TAMPERED", Label: "edited", Outcomes: []policy.Outcome{policy.OutcomeReject, policy.OutcomeEscalate}}}
	item := func(st policy.Status, offered bool) policy.Item {
		it := policy.Item{ID: "itm_1", Status: st}
		if st == policy.StatusScored {
			n := 80
			it.RiskScore, it.Recommendation = &n, policy.RecommendReject
		}
		it.Team.DecisionsOffered = offered
		return it
	}
	cases := []struct {
		name string
		it   policy.Item
		in   policy.Intent
		code policy.Code
	}{
		{"clear scored", item(policy.StatusScored, true), policy.Intent{Outcome: policy.OutcomeClear, Reason: "OK"}, ""},
		{"clear error", item(policy.StatusError, true), policy.Intent{Outcome: policy.OutcomeClear, Reason: "OK"}, policy.CodeNotChecked},
		{"clear pending", item(policy.StatusPending, true), policy.Intent{Outcome: policy.OutcomeClear, Reason: "OK"}, policy.CodeNotChecked},
		{"clear invalid", item(policy.StatusInvalid, true), policy.Intent{Outcome: policy.OutcomeClear, Reason: "OK"}, policy.CodeNotChecked},
		{"reject without comment", item(policy.StatusScored, true), policy.Intent{Outcome: policy.OutcomeReject, Reason: "TAMPERED"}, policy.CodeValidationFailed},
		{"reason for another outcome", item(policy.StatusScored, true), policy.Intent{Outcome: policy.OutcomeReject, Reason: "OK", Comment: "x"}, policy.CodeValidationFailed},
		{"1.1 service", item(policy.StatusScored, false), policy.Intent{Outcome: policy.OutcomeClear, Reason: "OK"}, policy.CodeNotOffered},
	}
	for _, c := range cases {
		c.in.Reasons = reasons
		_, err := dec.Allowed(policy.Situation{Item: c.it}, c.in)
		if policy.ErrorCode(err) != c.code && !(c.code == "" && err == nil) {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	awaiting := item(policy.StatusScored, true)
	awaiting.Team.Decisions = []policy.Decision{{ID: "dec_1", Outcome: policy.OutcomeReject, By: "ana", State: policy.DecisionAwaiting}}
	if _, err := conf.Allowed(policy.Situation{Item: awaiting}, policy.Intent{Me: "ana", Agree: true}); policy.ErrorCode(err) != policy.CodeSameReviewer {
		t.Errorf("the author confirms: %v", err)
	}
	if _, err := conf.Allowed(policy.Situation{Item: awaiting}, policy.Intent{Me: "ben"}); policy.ErrorCode(err) != policy.CodeValidationFailed {
		t.Errorf("a return without a comment: %v", err)
	}
	in, err := conf.Allowed(policy.Situation{Item: awaiting}, policy.Intent{Me: "ben", Agree: true, Comment: "  ok "})
	if err != nil || in.DecisionID != "dec_1" || in.Comment != "ok" {
		t.Errorf("ben confirms: %+v, %v", in, err)
	}
	if _, err := conf.Allowed(policy.Situation{Item: awaiting, OpenAction: policy.ActionQueued}, policy.Intent{Me: "ben", Agree: true}); policy.ErrorCode(err) != policy.CodeActionOpen {
		t.Errorf("a confirmation beside an open action: %v", err)
	}
}
