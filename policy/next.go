package policy

import (
	"fmt"
	"time"
)

// NextKind is what should happen next to an item.
type NextKind string

const (
	NextResubmit    NextKind = "resubmit"
	NextRequestFile NextKind = "request_file"
	NextWait        NextKind = "wait"
	NextReconcile   NextKind = "reconcile"
	NextNone        NextKind = "none"
)

// Situation is everything the next action depends on.
type Situation struct {
	Item Item
	// OpenAction is the state of the item's open action, "" when none.
	OpenAction ActionState
	// RateLimitedUntil is when the API's rate-limit wait ends (zero: none).
	RateLimitedUntil time.Time
	Now              time.Time
	// Bands are the risk bands in force (review's triage settings), for a
	// rule that reads an item's band (ClearSkip); zero: DefaultBands.
	Bands Bands
}

// Next is the next action on an item, with the time to wait for.
type Next struct {
	Kind  NextKind
	Until time.Time
}

// NextAction says what should happen next to an item.
func NextAction(s Situation) Next {
	switch {
	case s.OpenAction.NeedsReconcile():
		return Next{Kind: NextReconcile}
	case s.OpenAction.Open():
		return Next{Kind: NextNone}
	}
	if s.Item.Status != StatusError {
		return Next{Kind: NextNone}
	}
	if !Retryable(s.Item.ErrorCode) {
		return Next{Kind: NextRequestFile}
	}
	if s.Now.Before(s.RateLimitedUntil) {
		return Next{Kind: NextWait, Until: s.RateLimitedUntil}
	}
	return Next{Kind: NextResubmit}
}

// CanResubmit returns nil when a reviewer may re-submit the item now, or an
// *Error naming the reason and what to do instead.
func CanResubmit(s Situation) error {
	it := s.Item
	if s.OpenAction.Open() {
		return Errorf(CodeActionOpen, "item %s already has an open action (%s); wait for it or cancel it", it.ID, s.OpenAction)
	}
	switch it.Status {
	case StatusError:
	case StatusInvalid:
		return Errorf(CodeNotRetryable, "item %s has no valid answer (%s); sync again before acting on it", it.ID, CodeInvalidResponse)
	default:
		return Errorf(CodeNotRetryable, "item %s is %s, not in error; there is nothing to re-submit", it.ID, it.Status)
	}
	if !Retryable(it.ErrorCode) {
		return Errorf(CodeNotRetryable, "item %s failed with %s, which a re-run cannot help; request a new file from the customer", it.ID, it.ErrorCode)
	}
	if s.Now.Before(s.RateLimitedUntil) {
		return Errorf(CodeRateLimitWait, "the screening API asked us to wait; re-submit after %s", s.RateLimitedUntil.Local().Format("15:04:05"))
	}
	return nil
}

// CanRequestFile returns nil when a reviewer may ask the customer for a new
// file: the item failed with a code that a re-run cannot help.
func CanRequestFile(s Situation) error {
	it := s.Item
	if s.OpenAction.Open() {
		return Errorf(CodeActionOpen, "item %s already has an open action (%s); wait for it or cancel it", it.ID, s.OpenAction)
	}
	if it.Status != StatusError {
		return Errorf(CodeConflict, "item %s is %s; a new file is requested only for an item in error", it.ID, it.Status)
	}
	if Retryable(it.ErrorCode) {
		return Errorf(CodeConflict, "item %s failed with %s, which a re-run may help; re-submit it instead", it.ID, it.ErrorCode)
	}
	return nil
}

// CanReplace returns nil when a reviewer may upload a file the customer sent:
// the item needs a new file or is waiting for one.
func CanReplace(s Situation) error {
	it := s.Item
	if s.OpenAction.Open() {
		return Errorf(CodeActionOpen, "item %s already has an open action (%s); wait for it or cancel it", it.ID, s.OpenAction)
	}
	if it.Status == StatusAwaitingFile || (it.Status == StatusError && !Retryable(it.ErrorCode)) {
		return nil
	}
	if it.Status == StatusError {
		return Errorf(CodeConflict, "item %s failed with %s, which a re-run may help; re-submit it instead", it.ID, it.ErrorCode)
	}
	return Errorf(CodeConflict, "item %s is %s; a replacement is uploaded only for an item that needs a new file", it.ID, it.Status)
}

// Describe is one sentence for a reviewer about an item's state.
func Describe(it Item) string {
	switch it.Status {
	case StatusScored:
		return fmt.Sprintf("Checked: risk score %d, recommendation %s.", *it.RiskScore, it.Recommendation)
	case StatusPending:
		return "Not checked yet: the analysis is running."
	case StatusAwaitingFile:
		return "Not checked: waiting for a new file from the customer."
	case StatusInvalid:
		return "Not checked: " + Info(CodeInvalidResponse).Explanation + " (" + it.Problem + ")"
	default:
		return "Not checked: " + Info(it.ErrorCode).Explanation
	}
}
