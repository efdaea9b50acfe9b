package policy_test

import (
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

func TestBulkSkips(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	sit := func(status policy.Status, code policy.Code, open policy.ActionState) policy.Situation {
		return policy.Situation{Item: policy.Item{ID: "i", Status: status, ErrorCode: code}, OpenAction: open, Now: now}
	}
	waiting := sit(policy.StatusError, policy.CodeInternal, "")
	waiting.RateLimitedUntil = now.Add(time.Hour)
	tests := []struct {
		name              string
		sit               policy.Situation
		resubmit, request policy.Skip
	}{
		{"retryable", sit(policy.StatusError, policy.CodeClassifierTimeout, ""), "", policy.SkipRetryable},
		{"needs a file", sit(policy.StatusError, policy.CodeDecodeFailed, ""), policy.SkipNeedsFile, ""},
		{"queued action", sit(policy.StatusError, policy.CodeClassifierTimeout, policy.ActionQueued), policy.SkipActionOpen, policy.SkipActionOpen},
		{"unknown action", sit(policy.StatusError, policy.CodePayloadTooLarge, policy.ActionUnknown), policy.SkipActionOpen, policy.SkipActionOpen},
		{"done action does not block", sit(policy.StatusError, policy.CodeInternal, policy.ActionDone), "", policy.SkipRetryable},
		{"invalid", sit(policy.StatusInvalid, policy.CodeInvalidResponse, ""), policy.SkipInvalid, policy.SkipInvalid},
		{"scored", sit(policy.StatusScored, "", ""), policy.SkipNotInError, policy.SkipNotInError},
		{"awaiting file", sit(policy.StatusAwaitingFile, "", ""), policy.SkipNotInError, policy.SkipNotInError},
		{"a rate-limit wait delays, it does not skip", waiting, "", policy.SkipRetryable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := policy.ResubmitSkip(tt.sit); got != tt.resubmit {
				t.Errorf("resubmit skip %q, want %q", got, tt.resubmit)
			}
			if got := policy.RequestFileSkip(tt.sit); got != tt.request {
				t.Errorf("request skip %q, want %q", got, tt.request)
			}
		})
	}
}

// TestClearSkip: a bulk clear takes only a scored item of the low band in
// force, recommended forward, with no decision and no open action, on a
// service that takes decisions; every other item is left out for its
// reason. An unchecked item (error, invalid, pending, awaiting a file) is
// never taken.
func TestClearSkip(t *testing.T) {
	now := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	scored := func(score int, rec policy.Recommendation) policy.Item {
		it := policy.Item{ID: "i", Status: policy.StatusScored, RiskScore: &score, Recommendation: rec}
		it.Team.DecisionsOffered = true
		return it
	}
	with := func(it policy.Item, d policy.DecisionState) policy.Item {
		it.Team.Decisions = []policy.Decision{{ID: "dec_1", Outcome: policy.OutcomeReject, By: "ben", At: now, State: d}}
		return it
	}
	unchecked := func(st policy.Status) policy.Item {
		it := policy.Item{ID: "i", Status: st}
		it.Team.DecisionsOffered = true
		return it
	}
	on11 := scored(10, policy.RecommendForward)
	on11.Team.DecisionsOffered = false
	tests := []struct {
		name  string
		it    policy.Item
		open  policy.ActionState
		bands policy.Bands
		want  policy.Skip
	}{
		{"low, forward, undecided", scored(10, policy.RecommendForward), "", policy.Bands{}, ""},
		{"the top of the low band", scored(39, policy.RecommendForward), "", policy.Bands{}, ""},
		{"medium", scored(40, policy.RecommendForward), "", policy.Bands{}, policy.SkipNotLowBand},
		{"the band in force, not the default", scored(25, policy.RecommendForward), "", policy.Bands{Medium: 20, High: 60, Critical: 80}, policy.SkipNotLowBand},
		{"recommended review", scored(10, policy.RecommendReview), "", policy.Bands{}, policy.SkipRecommendReview},
		{"recommended reject", scored(10, policy.RecommendReject), "", policy.Bands{}, policy.SkipRecommendReject},
		{"in error", unchecked(policy.StatusError), "", policy.Bands{}, policy.SkipNotChecked},
		{"awaiting a file", unchecked(policy.StatusAwaitingFile), "", policy.Bands{}, policy.SkipNotChecked},
		{"invalid", unchecked(policy.StatusInvalid), "", policy.Bands{}, policy.SkipInvalid},
		{"pending", unchecked(policy.StatusPending), "", policy.Bands{}, policy.SkipPending},
		{"awaiting confirmation", with(scored(10, policy.RecommendForward), policy.DecisionAwaiting), "", policy.Bands{}, policy.SkipAwaitingConfirm},
		{"final", with(scored(10, policy.RecommendForward), policy.DecisionFinal), "", policy.Bands{}, policy.SkipDecided},
		{"returned", with(scored(10, policy.RecommendForward), policy.DecisionReturned), "", policy.Bands{}, policy.SkipDecided},
		{"an open action", scored(10, policy.RecommendForward), policy.ActionUnknown, policy.Bands{}, policy.SkipActionOpen},
		{"a done action does not block", scored(10, policy.RecommendForward), policy.ActionDone, policy.Bands{}, ""},
		{"a 1.1 service", on11, "", policy.Bands{}, policy.SkipNotOffered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sit := policy.Situation{Item: tt.it, OpenAction: tt.open, Now: now, Bands: tt.bands}
			if got := policy.ClearSkip(sit); got != tt.want {
				t.Errorf("clear skip %q, want %q", got, tt.want)
			}
		})
	}
	d, _ := policy.DescribeKind(policy.ActionDecision)
	if d.BulkSkip == nil || d.BulkOutcome != policy.OutcomeClear {
		t.Fatalf("the decision kind's bulk: outcome %q", d.BulkOutcome)
	}
}
