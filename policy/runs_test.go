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
