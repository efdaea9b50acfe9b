package policy_test

import (
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// TestNeedsReviewer writes the rule out by hand for every status, a code a
// re-run may help and one it cannot, no open action and each open state,
// and with and without a rate-limit wait.
func TestNeedsReviewer(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	codes := map[policy.Status][]policy.Code{
		policy.StatusError: {policy.CodeClassifierTimeout, policy.CodeDecodeFailed},
	}
	for _, st := range policy.Statuses() {
		cs := codes[st]
		if cs == nil {
			cs = []policy.Code{""}
		}
		for _, code := range cs {
			for _, open := range append([]policy.ActionState{""}, policy.OpenActionStates()...) {
				for _, limited := range []bool{false, true} {
					s := policy.Situation{Item: policy.Item{ID: "i1", Status: st, ErrorCode: code}, OpenAction: open, Now: now}
					if limited {
						s.RateLimitedUntil = now.Add(time.Minute)
					}
					var want bool
					switch {
					case open == policy.ActionUnknown:
						want = true // reconcile it with its key
					case open != "":
						want = false // its action is on its way
					default:
						want = st == policy.StatusError // resubmit, wait, or request a new file
					}
					if got := policy.NeedsReviewer(s); got != want {
						t.Errorf("%s %s, open action %q, rate-limited %v: needs the reviewer %v, want %v", st, code, open, limited, got, want)
					}
				}
			}
		}
	}
}
