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

// Why a bulk clear leaves an item out (ClearSkip).
const (
	SkipNotOffered      Skip = "not_offered"           // the service takes no decisions (1.0, 1.1)
	SkipNotChecked      Skip = "not_checked"           // in error or awaiting a file: never cleared
	SkipPending         Skip = "pending"               // its analysis runs: not checked yet
	SkipRecommendReject Skip = "recommended_reject"    // the pre-screen said reject
	SkipRecommendReview Skip = "recommended_review"    // the pre-screen said review
	SkipNotLowBand      Skip = "not_low_band"          // its score is above the low band
	SkipAwaitingConfirm Skip = "awaiting_confirmation" // a decision waits for a second reviewer
	SkipDecided         Skip = "decided"               // it has a decision (final or returned)
)

// ClearSkip says why a bulk clear leaves an item out, or "" when it takes
// it: only a scored item in the low band of bands in force, which the
// pre-screen recommended to forward, with no decision and no open action,
// on a service that takes decisions. An item that could not be checked
// (error, invalid, pending, awaiting a file) is never cleared; an item
// recommended reject or review needs a person's look, one at a time; a
// decision awaiting confirmation, final or returned is never overruled in
// bulk (a returned one was returned for a reason, in words, to read).
// A claim by another reviewer is the caller's to judge (SkipClaimed).
func ClearSkip(s Situation) Skip {
	it := s.Item
	if s.OpenAction.Open() {
		return SkipActionOpen
	}
	switch it.Status {
	case StatusInvalid:
		return SkipInvalid
	case StatusPending:
		return SkipPending
	case StatusScored:
	default:
		return SkipNotChecked
	}
	if !it.Team.DecisionsOffered {
		return SkipNotOffered
	}
	if d := it.CurrentDecision(); d != nil {
		if d.State == DecisionAwaiting {
			return SkipAwaitingConfirm
		}
		return SkipDecided
	}
	switch it.Recommendation {
	case RecommendForward:
	case RecommendReject:
		return SkipRecommendReject
	default:
		return SkipRecommendReview
	}
	b := s.Bands
	if b == (Bands{}) {
		b = DefaultBands()
	}
	if band, ok := b.Of(it); !ok {
		return SkipNotChecked
	} else if band != BandLow {
		return SkipNotLowBand
	}
	// What a single clear would say, as the last word: CanDecide.
	if CanDecide(s, OutcomeClear) != nil {
		return SkipNotChecked
	}
	return ""
}
