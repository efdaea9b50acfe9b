package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A reviewer's decision on an item, with four eyes (contract version 1.2).
// A 1.0 or 1.1 service sends no decisions and takes none. The service
// measured; a person decides: the recommendation is advice, a decision is
// the verdict. Its life (final, awaiting confirmation, returned,
// superseded) is the service's, written down here as decisionMachine, and
// is not the outbox's: the outbox says whether a request reached the
// service for its key, the decision what was decided.

// Outcome is what a reviewer decides.
type Outcome string

const (
	OutcomeClear    Outcome = "clear"
	OutcomeReject   Outcome = "reject"
	OutcomeEscalate Outcome = "escalate"
)

// Outcomes lists every outcome, in the order a person is offered them.
func Outcomes() []Outcome { return []Outcome{OutcomeClear, OutcomeReject, OutcomeEscalate} }

// Known reports whether o is an outcome of the contract.
func (o Outcome) Known() bool { return slices.Contains(Outcomes(), o) }

// DecisionState is where a decision stands, as the service says.
type DecisionState string

const (
	// DecisionFinal: the item's verdict.
	DecisionFinal DecisionState = "final"
	// DecisionAwaiting: a reject, or a clear of an item recommended reject,
	// waits for a second reviewer.
	DecisionAwaiting DecisionState = "awaiting_confirmation"
	// DecisionReturned: the second reviewer did not agree; the item needs a
	// new decision.
	DecisionReturned DecisionState = "returned"
	// DecisionSuperseded: a newer decision replaced it.
	DecisionSuperseded DecisionState = "superseded"
)

// DecisionEvent is what can happen to a decision at the service.
type DecisionEvent string

const (
	// DecisionConfirmed: a second reviewer agreed.
	DecisionConfirmed DecisionEvent = "confirmed"
	// DecisionReturnedBack: a second reviewer did not agree.
	DecisionReturnedBack DecisionEvent = "returned"
	// DecisionSupersededBy: a new decision on the item.
	DecisionSupersededBy DecisionEvent = "superseded"
)

// decisionMachine is the life of a decision, the one place it is written
// down: state x event -> state, as the contract says. A pair that is not
// here does not happen. A decision starts final or awaiting confirmation
// (InitialDecisionState); only one awaiting confirmation can be confirmed
// or returned; any decision that is still the item's current one is
// superseded by a new decision; a superseded decision is history.
var decisionMachine = map[DecisionState]map[DecisionEvent]DecisionState{
	DecisionFinal: {
		DecisionSupersededBy: DecisionSuperseded,
	},
	DecisionAwaiting: {
		DecisionConfirmed:    DecisionFinal,
		DecisionReturnedBack: DecisionReturned,
		DecisionSupersededBy: DecisionSuperseded,
	},
	DecisionReturned: {
		DecisionSupersededBy: DecisionSuperseded,
	},
	DecisionSuperseded: {},
}

// DecisionTransition is the state an event leads a decision to; ok is
// false when the contract does not allow the event in that state.
func DecisionTransition(from DecisionState, ev DecisionEvent) (to DecisionState, ok bool) {
	to, ok = decisionMachine[from][ev]
	return to, ok
}

// DecisionStates lists every state of a decision, sorted.
func DecisionStates() []DecisionState {
	out := make([]DecisionState, 0, len(decisionMachine))
	for s := range decisionMachine {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Known reports whether s is a state of the contract.
func (s DecisionState) Known() bool { _, ok := decisionMachine[s]; return ok }

// NeedsFourEyes reports whether a decision waits for a second reviewer: a
// reject, and a clear of an item whose recommendation is reject.
func NeedsFourEyes(o Outcome, rec Recommendation) bool {
	return o == OutcomeReject || (o == OutcomeClear && rec == RecommendReject)
}

// InitialDecisionState is the state a new decision starts in.
func InitialDecisionState(o Outcome, rec Recommendation) DecisionState {
	if NeedsFourEyes(o, rec) {
		return DecisionAwaiting
	}
	return DecisionFinal
}

// RawConfirmation is a second reviewer's answer as the service sent it.
type RawConfirmation struct {
	By      string    `json:"by"`
	At      time.Time `json:"at"`
	Agree   bool      `json:"agree"`
	Comment string    `json:"comment,omitempty"`
}

// RawDecision is a decision as the service sent it.
type RawDecision struct {
	ID           string           `json:"id"`
	Outcome      string           `json:"outcome"`
	ReasonCode   string           `json:"reason_code"`
	Comment      string           `json:"comment,omitempty"`
	By           string           `json:"by"`
	At           time.Time        `json:"at"`
	State        string           `json:"state"`
	Confirmation *RawConfirmation `json:"confirmation"`
}

// Decide1_2 holds the version 1.2 field of an item as the service sent it:
// nil from a 1.0 or 1.1 service.
type Decide1_2 struct {
	Decisions []RawDecision `json:"decisions,omitempty"`
}

// Confirmation is a second reviewer's answer to a decision.
type Confirmation struct {
	By      string
	At      time.Time
	Agree   bool
	Comment string
}

// Decision is a reviewer's decision, as the service keeps it.
type Decision struct {
	ID           string
	Outcome      Outcome
	ReasonCode   string
	Comment      string
	By           string
	At           time.Time
	State        DecisionState
	Confirmation *Confirmation
}

// decisionProblem says how an item's decisions break the contract, or "".
// A decision the console cannot read (an unknown state or outcome, no id,
// author or time) makes the whole item an invalid answer: it is never
// shown as decided.
func decisionProblem(ds []RawDecision) string {
	for i, d := range ds {
		switch {
		case d.ID == "" || d.By == "" || d.At.IsZero():
			return "a decision without an id, an author or a time"
		case !Outcome(d.Outcome).Known():
			return fmt.Sprintf("a decision with unknown outcome %q", d.Outcome)
		case !DecisionState(d.State).Known():
			return fmt.Sprintf("a decision in unknown state %q", d.State)
		case d.Confirmation != nil && (d.Confirmation.By == "" || d.Confirmation.At.IsZero()):
			return "a confirmation without a reviewer or a time"
		case i < len(ds)-1 && DecisionState(d.State) != DecisionSuperseded:
			return fmt.Sprintf("decision %s is %s but a newer one follows it", d.ID, d.State)
		case i == len(ds)-1 && DecisionState(d.State) == DecisionSuperseded:
			return fmt.Sprintf("the current decision %s is superseded", d.ID)
		}
	}
	return ""
}

func validateDecisions(ds []RawDecision) (out []Decision, offered bool) {
	if ds == nil {
		return nil, false
	}
	out = make([]Decision, 0, len(ds))
	for _, d := range ds {
		dec := Decision{ID: d.ID, Outcome: Outcome(d.Outcome), ReasonCode: d.ReasonCode, Comment: d.Comment,
			By: d.By, At: d.At.UTC(), State: DecisionState(d.State)}
		if c := d.Confirmation; c != nil {
			dec.Confirmation = &Confirmation{By: c.By, At: c.At.UTC(), Agree: c.Agree, Comment: c.Comment}
		}
		out = append(out, dec)
	}
	return out, true
}

// CurrentDecision is the item's current decision (the last one), or nil.
func (it Item) CurrentDecision() *Decision {
	if len(it.Team.Decisions) == 0 {
		return nil
	}
	return &it.Team.Decisions[len(it.Team.Decisions)-1]
}

// ReasonCode is one reason a decision may give, from the service's list.
type ReasonCode struct {
	Code     string    `json:"code"`
	Label    string    `json:"label"`
	Outcomes []Outcome `json:"outcomes"`
}

// Allows reports whether the code may be given with the outcome.
func (r ReasonCode) Allows(o Outcome) bool { return slices.Contains(r.Outcomes, o) }

// MaxDecisionCommentRunes is the contract's limit on a decision's comment.
const MaxDecisionCommentRunes = 2000

// Codes of version 1.2.
const (
	CodeNotChecked              Code = "NOT_CHECKED"               // 422: a clear of an item that was not checked
	CodeNotDecidable            Code = "NOT_DECIDABLE"             // 422: a decision on a pending item
	CodeSameReviewer            Code = "SAME_REVIEWER"             // 422: a confirmation by the decision's author
	CodeNotAwaitingConfirmation Code = "NOT_AWAITING_CONFIRMATION" // 422: a confirmation of a decision that does not await one
)

// CanDecide returns nil when a reviewer may decide outcome on the item
// now, or an *Error saying why not, in words. An item that could not be
// checked (in error, an invalid answer, pending, awaiting a file) is never
// cleared; nothing is decided while an analysis runs; a decision counts as
// the item's one open action; a service that sends no decisions (1.0,
// 1.1) takes none, and that is said.
func CanDecide(s Situation, o Outcome) error {
	it := s.Item
	if !o.Known() {
		return Errorf(CodeInvalidInput, "%q is not a decision: clear, reject or escalate", o)
	}
	if s.OpenAction.Open() {
		return Errorf(CodeActionOpen, "item %s already has an open action (%s); wait for it or cancel it", it.ID, s.OpenAction)
	}
	if !it.Team.DecisionsOffered && it.Status != StatusInvalid {
		return Errorf(CodeNotOffered, "this service does not take decisions (it speaks contract 1.0 or 1.1); item %s was not decided", it.ID)
	}
	switch it.Status {
	case StatusInvalid:
		if o == OutcomeClear {
			return Errorf(CodeNotChecked, "item %s cannot be cleared: the service's answer for it is invalid, so it was never checked; sync again", it.ID)
		}
		return Errorf(CodeNotDecidable, "item %s has no valid answer (%s); sync again before deciding on it", it.ID, CodeInvalidResponse)
	case StatusPending:
		if o == OutcomeClear {
			return Errorf(CodeNotChecked, "item %s cannot be cleared: its analysis is still running, so it was not checked", it.ID)
		}
		return Errorf(CodeNotDecidable, "item %s cannot be decided while its analysis runs; wait for its result", it.ID)
	case StatusScored:
		return nil
	case StatusError, StatusAwaitingFile:
		if o == OutcomeClear {
			return Errorf(CodeNotChecked, "item %s cannot be cleared: it was not checked (%s); reject or escalate it, or get it checked first", it.ID, it.Status)
		}
		return nil
	}
	return Errorf(CodeNotDecidable, "item %s is %s: there is nothing to decide on", it.ID, it.Status)
}

// CheckReason returns the comment as it will be sent (trimmed), or an
// *Error saying why the reason and comment cannot go with the outcome: a
// code the list does not give for the outcome is refused, reject and
// escalate need a comment, and a comment follows a note's text rules, at
// most MaxDecisionCommentRunes characters.
func CheckReason(list []ReasonCode, o Outcome, code, comment string) (string, error) {
	var found *ReasonCode
	for i := range list {
		if list[i].Code == code {
			found = &list[i]
			break
		}
	}
	switch {
	case code == "":
		return "", Errorf(CodeValidationFailed, "a decision needs a reason code")
	case found == nil:
		return "", Errorf(CodeValidationFailed, "reason %q is not in the service's list of reason codes; sync to read the list again", code)
	case !found.Allows(o):
		return "", Errorf(CodeValidationFailed, "reason %s (%s) cannot be given to %s; it goes with %s", code, found.Label, o, joinOutcomes(found.Outcomes))
	}
	c := strings.TrimSpace(comment)
	if c == "" {
		if o == OutcomeReject || o == OutcomeEscalate {
			return "", Errorf(CodeValidationFailed, "a decision to %s needs a comment saying why", o)
		}
		return "", nil
	}
	if err := checkComment(c); err != nil {
		return "", err
	}
	return c, nil
}

func joinOutcomes(os []Outcome) string {
	if len(os) == 0 {
		return "no outcome"
	}
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = string(o)
	}
	return strings.Join(s, " or ")
}

// checkComment holds a decision's or a confirmation's comment (trimmed, not
// empty) to a note's text rules and the decision's limit.
func checkComment(c string) error {
	if !utf8.ValidString(c) {
		return Errorf(CodeValidationFailed, "a comment must be UTF-8 text")
	}
	if n := utf8.RuneCountInString(c); n > MaxDecisionCommentRunes {
		return Errorf(CodeValidationFailed, "a comment holds at most %d characters; this one has %d", MaxDecisionCommentRunes, n)
	}
	for _, r := range c {
		if r != '\n' && unicode.IsControl(r) {
			return Errorf(CodeValidationFailed, "a comment cannot hold control characters (only newlines)")
		}
	}
	return nil
}

// CanConfirm returns nil when reviewer me may confirm or return the item's
// current decision, or an *Error saying why not: only a decision awaiting
// confirmation, never by its author, and a return needs a comment. It
// returns the comment as it will be sent.
func CanConfirm(it Item, me string, agree bool, comment string) (string, error) {
	d := it.CurrentDecision()
	if d == nil {
		return "", Errorf(CodeNotAwaitingConfirmation, "item %s has no decision to confirm", it.ID)
	}
	if d.State != DecisionAwaiting {
		return "", Errorf(CodeNotAwaitingConfirmation, "the decision on item %s is %s, not awaiting confirmation", it.ID, d.State)
	}
	if me == "" || d.By == me {
		return "", Errorf(CodeSameReviewer, "you decided item %s yourself: a second reviewer must confirm it", it.ID)
	}
	c := strings.TrimSpace(comment)
	if c == "" {
		if !agree {
			return "", Errorf(CodeValidationFailed, "returning a decision needs a comment saying why")
		}
		return "", nil
	}
	if err := checkComment(c); err != nil {
		return "", err
	}
	return c, nil
}

// NeedsReviewerDecisions is "needs the reviewer" for reviewer me on a
// service that takes decisions (1.2). An action to reconcile always needs
// her, and another open action never does (as NeedsReviewer says). Then
// the item's current decision rules:
//   - none: what NeedsReviewer says (an item in error to re-submit or to
//     ask a new file for), and a scored item recommended review or reject;
//   - final: nobody; the verdict is taken, and re-running the analysis of
//     a rejected item would be paid for nothing;
//   - returned: a new decision, unless the item's analysis runs (nothing
//     can be decided then; its result brings it back);
//   - awaiting confirmation: everyone but its author.
//
// On a service that sends no decisions (1.0, 1.1), and for an invalid
// answer, it is NeedsReviewer. The store's SQL follows it when the store
// learns decisions: it keeps the current decision's state and author
// beside the item.
func NeedsReviewerDecisions(s Situation, me string) bool {
	it := s.Item
	if !it.Team.DecisionsOffered || it.Status == StatusInvalid || s.OpenAction.Open() {
		return NeedsReviewer(s)
	}
	d := it.CurrentDecision()
	if d == nil {
		return NeedsReviewer(s) || it.Status == StatusScored && (it.Recommendation == RecommendReview || it.Recommendation == RecommendReject)
	}
	switch d.State {
	case DecisionReturned:
		return it.Status != StatusPending
	case DecisionAwaiting:
		return d.By != me
	}
	return false
}

// takesDecisions is the Check of a decision and of a confirmation: the
// item's one open action is free, and the service takes decisions (1.2).
// An invalid answer is CanDecide's to refuse, in its own words.
func takesDecisions(s Situation) error {
	it := s.Item
	if s.OpenAction.Open() {
		return Errorf(CodeActionOpen, "item %s already has an open action (%s); wait for it or cancel it", it.ID, s.OpenAction)
	}
	if !it.Team.DecisionsOffered && it.Status != StatusInvalid {
		return Errorf(CodeNotOffered, "this service does not take decisions (it speaks contract 1.0 or 1.1); nothing was queued for item %s", it.ID)
	}
	return nil
}

// judgeDecision is a decision's Judge: CanDecide for the outcome, then
// CheckReason against the service's list.
func judgeDecision(s Situation, in Intent) (Intent, error) {
	if err := CanDecide(s, in.Outcome); err != nil {
		return in, err
	}
	c, err := CheckReason(in.Reasons, in.Outcome, in.Reason, in.Comment)
	if err != nil {
		return in, err
	}
	in.Comment = c
	return in, nil
}

// judgeConfirmation is a confirmation's Judge: CanConfirm for the item's
// current decision; the intent names that decision. A confirmation meant
// for another decision (a new one came meanwhile) is refused: she
// confirms what she saw.
func judgeConfirmation(s Situation, in Intent) (Intent, error) {
	c, err := CanConfirm(s.Item, in.Me, in.Agree, in.Comment)
	if err != nil {
		return in, err
	}
	d := s.Item.CurrentDecision()
	if in.DecisionID != "" && in.DecisionID != d.ID {
		return in, Errorf(CodeNotAwaitingConfirmation, "the decision on item %s is now %s, not the %s you answered; look at it again", s.Item.ID, d.ID, in.DecisionID)
	}
	in.Comment, in.DecisionID = c, d.ID
	return in, nil
}
