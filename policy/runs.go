package policy

import "time"

// Bulk runs: why an item is left out of a bulk re-submission or file
// request. Pure rules, no I/O.

// Skip is why an item is left out of a bulk action. The set is open: a
// claim by another reviewer is one more reason, judged where claims are
// known.
type Skip string

const (
	SkipNeedsFile  Skip = "needs_file"  // re-submit: its code needs a new file
	SkipRetryable  Skip = "retryable"   // file request: a re-run may help it
	SkipActionOpen Skip = "action_open" // an action is already waiting
	SkipInvalid    Skip = "invalid"     // the service's answer broke the contract
	SkipNotInError Skip = "not_in_error"
	SkipClaimed    Skip = "claimed" // another reviewer holds it
)

// ResubmitSkip says why a bulk re-submission leaves an item out, or ""
// when it takes it. It is CanResubmit without the rate-limit wait: a wait
// delays a run, it does not change what may be re-submitted.
func ResubmitSkip(s Situation) Skip {
	s.RateLimitedUntil = time.Time{}
	return skipFor(s, CanResubmit(s))
}

// RequestFileSkip says why a bulk file request leaves an item out, or "".
func RequestFileSkip(s Situation) Skip {
	return skipFor(s, CanRequestFile(s))
}

func skipFor(s Situation, err error) Skip {
	if err == nil {
		return ""
	}
	if ErrorCode(err) == CodeActionOpen {
		return SkipActionOpen
	}
	switch s.Item.Status {
	case StatusInvalid:
		return SkipInvalid
	case StatusError:
		if Retryable(s.Item.ErrorCode) {
			return SkipRetryable
		}
		return SkipNeedsFile
	}
	return SkipNotInError
}
