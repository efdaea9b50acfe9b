package policy

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var decAt = time.Date(2026, 12, 2, 9, 14, 0, 0, time.UTC)

func TestDecisionMachineIsTheContractsLife(t *testing.T) {
	all := []DecisionEvent{DecisionConfirmed, DecisionReturnedBack, DecisionSupersededBy}
	want := map[DecisionState]map[DecisionEvent]DecisionState{
		DecisionFinal:      {DecisionSupersededBy: DecisionSuperseded},
		DecisionAwaiting:   {DecisionConfirmed: DecisionFinal, DecisionReturnedBack: DecisionReturned, DecisionSupersededBy: DecisionSuperseded},
		DecisionReturned:   {DecisionSupersededBy: DecisionSuperseded},
		DecisionSuperseded: {},
	}
	if got := DecisionStates(); len(got) != len(want) {
		t.Fatalf("states %v", got)
	}
	for from, row := range want {
		for _, ev := range all {
			to, ok := DecisionTransition(from, ev)
			wantTo, wantOK := row[ev]
			if ok != wantOK || to != wantTo {
				t.Errorf("%s --%s--> %q %v, want %q %v", from, ev, to, ok, wantTo, wantOK)
			}
		}
	}
	if _, ok := DecisionTransition("decided", DecisionConfirmed); ok {
		t.Error("an unknown state moved")
	}
}

func TestFourEyes(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		rec  Recommendation
		want DecisionState
	}{
		{OutcomeReject, RecommendForward, DecisionAwaiting},
		{OutcomeReject, RecommendReject, DecisionAwaiting},
		{OutcomeReject, "", DecisionAwaiting}, // an item in error has no recommendation
		{OutcomeClear, RecommendReject, DecisionAwaiting},
		{OutcomeClear, RecommendReview, DecisionFinal},
		{OutcomeClear, RecommendForward, DecisionFinal},
		{OutcomeEscalate, RecommendReject, DecisionFinal},
		{OutcomeEscalate, "", DecisionFinal},
	} {
		if got := InitialDecisionState(c.o, c.rec); got != c.want {
			t.Errorf("%s of an item recommended %q: %s, want %s", c.o, c.rec, got, c.want)
		}
	}
}

func situationOf(st Status, rec Recommendation) Situation {
	it := Item{ID: "itm_1", Status: st, Recommendation: rec}
	if st == StatusScored {
		s := 80
		it.RiskScore = &s
	}
	if st == StatusError {
		it.ErrorCode = CodeDecodeFailed
	}
	it.Team.DecisionsOffered = true
	return Situation{Item: it, Now: decAt}
}

func TestCanDecide(t *testing.T) {
	for _, c := range []struct {
		status Status
		o      Outcome
		open   ActionState
		want   Code // "" allowed
	}{
		{StatusScored, OutcomeClear, "", ""},
		{StatusScored, OutcomeReject, "", ""},
		{StatusScored, OutcomeEscalate, "", ""},
		// An item that could not be checked is never cleared.
		{StatusError, OutcomeClear, "", CodeNotChecked},
		{StatusInvalid, OutcomeClear, "", CodeNotChecked},
		{StatusPending, OutcomeClear, "", CodeNotChecked},
		{StatusAwaitingFile, OutcomeClear, "", CodeNotChecked},
		{StatusError, OutcomeReject, "", ""},
		{StatusError, OutcomeEscalate, "", ""},
		{StatusAwaitingFile, OutcomeReject, "", ""},
		{StatusAwaitingFile, OutcomeEscalate, "", ""},
		{StatusPending, OutcomeReject, "", CodeNotDecidable},
		{StatusPending, OutcomeEscalate, "", CodeNotDecidable},
		{StatusInvalid, OutcomeReject, "", CodeNotDecidable},
		{StatusScored, OutcomeReject, ActionQueued, CodeActionOpen},
		{StatusScored, OutcomeClear, ActionUnknown, CodeActionOpen},
		{StatusScored, "approve", "", CodeInvalidInput},
	} {
		s := situationOf(c.status, RecommendReview)
		s.OpenAction = c.open
		if c.want == "" || c.want == CodeNotChecked || c.want == CodeNotDecidable {
			// The same item from a service that takes no decisions (1.1).
			old := s
			old.Item.Team.DecisionsOffered = false
			want := CodeNotOffered
			if c.status == StatusInvalid {
				want = c.want // an invalid answer says nothing of the service
			}
			if err := CanDecide(old, c.o); ErrorCode(err) != want || (want == CodeNotOffered && !strings.Contains(err.Error(), "does not take decisions")) {
				t.Errorf("%s %s on a 1.1 service: %v, want %s", c.o, c.status, err, want)
			}
		}
		err := CanDecide(s, c.o)
		if got := ErrorCode(err); got != c.want {
			t.Errorf("%s %s (open %q): %v, want %q", c.o, c.status, c.open, err, c.want)
		}
		var pe *Error
		if err != nil && (!errors.As(err, &pe) || !strings.Contains(err.Error(), "itm_1") && c.want != CodeInvalidInput) {
			t.Errorf("%s %s: the refusal does not name the item in words: %v", c.o, c.status, err)
		}
	}
}

var demoList = []ReasonCode{
	{Code: "DOC_TAMPERED", Label: "Signs of editing or tampering", Outcomes: []Outcome{OutcomeReject, OutcomeEscalate}},
	{Code: "DOC_GENUINE", Label: "Document checks out", Outcomes: []Outcome{OutcomeClear}},
}

func TestCheckReason(t *testing.T) {
	long := strings.Repeat("é", MaxDecisionCommentRunes+1)
	for _, c := range []struct {
		o             Outcome
		code, comment string
		want          string // "" allowed, else a word of the refusal
		sent          string
	}{
		{OutcomeClear, "DOC_GENUINE", "", "", ""},
		{OutcomeClear, "DOC_GENUINE", "  looks fine \n", "", "looks fine"},
		{OutcomeReject, "DOC_TAMPERED", "MRZ digits differ", "", "MRZ digits differ"},
		{OutcomeEscalate, "DOC_TAMPERED", "ask compliance", "", "ask compliance"},
		{OutcomeReject, "DOC_TAMPERED", "  ", "needs a comment", ""},
		{OutcomeEscalate, "DOC_TAMPERED", "", "needs a comment", ""},
		{OutcomeClear, "DOC_TAMPERED", "", "cannot be given to clear", ""},
		{OutcomeReject, "DOC_GENUINE", "x", "cannot be given to reject", ""},
		{OutcomeReject, "MADE_UP", "x", "not in the service's list", ""},
		{OutcomeReject, "", "x", "needs a reason code", ""},
		{OutcomeReject, "DOC_TAMPERED", long, "at most 2000", ""},
		{OutcomeReject, "DOC_TAMPERED", "a\x07b", "control characters", ""},
		{OutcomeReject, "DOC_TAMPERED", "line one\nline two", "", "line one\nline two"},
	} {
		sent, err := CheckReason(demoList, c.o, c.code, c.comment)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s %q: refused: %v", c.o, c.code, c.comment, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %s %q: %v, want a refusal saying %q", c.o, c.code, c.comment, err, c.want)
		case err == nil && sent != c.sent:
			t.Errorf("%s %s %q: sends %q, want %q", c.o, c.code, c.comment, sent, c.sent)
		}
	}
}

func withDecisions(it Item, ds ...Decision) Item {
	it.Team.DecisionsOffered = true
	it.Team.Decisions = ds
	return it
}

func TestCanConfirm(t *testing.T) {
	awaiting := Decision{ID: "dec_1", Outcome: OutcomeReject, By: "ana", At: decAt, State: DecisionAwaiting}
	final := awaiting
	final.State = DecisionFinal
	base := situationOf(StatusScored, RecommendReject).Item
	for _, c := range []struct {
		name    string
		it      Item
		me      string
		agree   bool
		comment string
		want    Code
	}{
		{"another reviewer agrees", withDecisions(base, awaiting), "ben", true, "", ""},
		{"another reviewer returns with a comment", withDecisions(base, awaiting), "ben", false, "photo is fine", ""},
		{"a return needs a comment", withDecisions(base, awaiting), "ben", false, " ", CodeValidationFailed},
		{"never by its author", withDecisions(base, awaiting), "ana", true, "", CodeSameReviewer},
		{"nobody known is nobody else", withDecisions(base, awaiting), "", true, "", CodeSameReviewer},
		{"a final decision awaits nothing", withDecisions(base, final), "ben", true, "", CodeNotAwaitingConfirmation},
		{"no decision", withDecisions(base), "ben", true, "", CodeNotAwaitingConfirmation},
	} {
		_, err := CanConfirm(c.it, c.me, c.agree, c.comment)
		if got := ErrorCode(err); got != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestNeedsReviewerDecisions(t *testing.T) {
	dec := func(st DecisionState, by string) Decision {
		return Decision{ID: "dec_1", Outcome: OutcomeReject, By: by, At: decAt, State: st}
	}
	scored := func(rec Recommendation) Item { return situationOf(StatusScored, rec).Item }
	noDecisions := scored(RecommendReview)
	noDecisions.Team.DecisionsOffered = false
	for _, c := range []struct {
		name string
		it   Item
		open ActionState
		me   string
		want bool
	}{
		{"scored, recommended review, undecided", scored(RecommendReview), "", "ana", true},
		{"scored, recommended reject, undecided", scored(RecommendReject), "", "ana", true},
		{"scored, recommended forward, undecided", scored(RecommendForward), "", "ana", false},
		{"recommended review, decided final", withDecisions(scored(RecommendReview), dec(DecisionFinal, "ana")), "", "ben", false},
		{"a returned decision, for its author", withDecisions(scored(RecommendReview), dec(DecisionReturned, "ana")), "", "ana", true},
		{"a returned decision, for another", withDecisions(scored(RecommendForward), dec(DecisionReturned, "ana")), "", "ben", true},
		{"awaiting confirmation, for another", withDecisions(scored(RecommendReject), dec(DecisionAwaiting, "ana")), "", "ben", true},
		{"awaiting confirmation, for its author", withDecisions(scored(RecommendReject), dec(DecisionAwaiting, "ana")), "", "ana", false},
		{"awaiting confirmation of a rejected error item, for another", withDecisions(situationOf(StatusError, "").Item, dec(DecisionAwaiting, "ana")), "", "ben", true},
		{"an error item rejected for good needs no re-run", withDecisions(situationOf(StatusError, "").Item, dec(DecisionFinal, "ana")), "", "ana", false},
		{"an error item whose reject awaits her own confirmation", withDecisions(situationOf(StatusError, "").Item, dec(DecisionAwaiting, "ana")), "", "ana", false},
		{"a returned decision on an item re-analysed now", withDecisions(situationOf(StatusPending, "").Item, dec(DecisionReturned, "ana")), "", "ben", false},
		{"her decision is queued", scored(RecommendReview), ActionQueued, "ana", false},
		{"her decision is unknown: reconcile", scored(RecommendReview), ActionUnknown, "ana", true},
		{"a 1.1 service: as before", noDecisions, "", "ana", false},
		{"an error item still needs its re-run (1.1 rule)", situationOf(StatusError, "").Item, "", "ana", true},
		{"pending", situationOf(StatusPending, "").Item, "", "ana", false},
		{"invalid", situationOf(StatusInvalid, "").Item, "", "ana", false},
	} {
		s := Situation{Item: c.it, OpenAction: c.open, Now: decAt}
		if got := NeedsReviewerDecisions(s, c.me); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		// Without a decision, it never says less than the 1.1 definition.
		if c.it.CurrentDecision() == nil && NeedsReviewer(s) && !NeedsReviewerDecisions(s, c.me) {
			t.Errorf("%s: needs her by NeedsReviewer, not by NeedsReviewerDecisions", c.name)
		}
	}
}

func TestDecisionsThatBreakTheContractMakeTheItemInvalid(t *testing.T) {
	score, rec := 80.0, "reject"
	good := RawDecision{ID: "dec_1", Outcome: "reject", ReasonCode: "DOC_TAMPERED", Comment: "x", By: "ana", At: decAt, State: "awaiting_confirmation"}
	for _, c := range []struct {
		name string
		ds   []RawDecision
		bad  bool
	}{
		{"none (1.2)", []RawDecision{}, false},
		{"one awaiting", []RawDecision{good}, false},
		{"unknown state", []RawDecision{func() RawDecision { d := good; d.State = "approved"; return d }()}, true},
		{"unknown outcome", []RawDecision{func() RawDecision { d := good; d.Outcome = "approve"; return d }()}, true},
		{"no id", []RawDecision{func() RawDecision { d := good; d.ID = ""; return d }()}, true},
		{"no author", []RawDecision{func() RawDecision { d := good; d.By = ""; return d }()}, true},
		{"no time", []RawDecision{func() RawDecision { d := good; d.At = time.Time{}; return d }()}, true},
		{"a confirmation without its reviewer", []RawDecision{func() RawDecision {
			d := good
			d.State, d.Confirmation = "final", &RawConfirmation{At: decAt, Agree: true}
			return d
		}()}, true},
		{"an older one not superseded", []RawDecision{good, func() RawDecision { d := good; d.ID = "dec_2"; return d }()}, true},
		{"the current one superseded", []RawDecision{func() RawDecision { d := good; d.State = "superseded"; return d }()}, true},
		{"superseded then current", []RawDecision{func() RawDecision { d := good; d.State = "superseded"; return d }(),
			func() RawDecision { d := good; d.ID, d.Outcome, d.State = "dec_2", "clear", "final"; return d }()}, false},
	} {
		raw := RawItem{ID: "itm_1", BatchID: "bat_1", Status: "scored", RiskScore: &score, Recommendation: &rec, UpdatedAt: decAt}
		raw.Decisions = c.ds
		it := Validate(raw)
		if got := it.Status == StatusInvalid; got != c.bad {
			t.Errorf("%s: status %s (%s)", c.name, it.Status, it.Problem)
		}
		if c.bad && (len(it.Team.Decisions) != 0 || it.CurrentDecision() != nil) {
			t.Errorf("%s: an invalid item is shown as decided: %+v", c.name, it.Team.Decisions)
		}
		if !c.bad && (!it.Team.DecisionsOffered || len(it.Team.Decisions) != len(c.ds)) {
			t.Errorf("%s: decisions %+v", c.name, it.Team)
		}
	}
	// A 1.1 item: no decisions offered, nothing invalid.
	raw := RawItem{ID: "itm_1", BatchID: "bat_1", Status: "scored", RiskScore: &score, Recommendation: &rec, UpdatedAt: decAt}
	if it := Validate(raw); it.Status != StatusScored || it.Team.DecisionsOffered {
		t.Errorf("a 1.1 item: %+v", it)
	}
}
