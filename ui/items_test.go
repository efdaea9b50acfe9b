package ui

import (
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// The window's "needs the reviewer" (which item to move to after an
// action, what is new after a sync, what opening an item claims) is
// policy's, for every status and every state of the newest action: the
// items the "Needs my action" filter lists and `next` picks, no more
// (an item awaiting the customer's file) and no fewer (one to reconcile).
func TestTheWindowNeedsTheReviewerAsPolicySays(t *testing.T) {
	now := time.Now()
	for _, st := range policy.Statuses() {
		codes := []policy.Code{""}
		if st == policy.StatusError {
			codes = []policy.Code{policy.CodeClassifierTimeout, policy.CodeDecodeFailed}
		}
		for _, code := range codes {
			for _, state := range append([]policy.ActionState{""}, policy.ActionStates()...) {
				it := policy.Item{ID: "itm_1", BatchID: "bat_1", Status: st, ErrorCode: code}
				v := review.ItemView{ItemRow: store.ItemRow{Item: it}}
				if state != "" {
					v.Action = &store.ActionRef{ID: 1, Kind: policy.ActionResubmit, State: state}
				}
				sit := policy.Situation{Item: it, OpenAction: v.OpenAction(), Now: now}
				v.Next = policy.NextAction(sit)
				want := policy.NeedsReviewer(sit)
				if got := needsReviewer(v); got != want {
					t.Errorf("%s %s, newest action %q: the list says needs the reviewer %v, policy %v", st, code, state, got, want)
				}
				if got := needsClaim(review.Detail{ItemView: v}); got != want {
					t.Errorf("%s %s, newest action %q: opening it claims %v, policy says it needs the reviewer %v", st, code, state, got, want)
				}
			}
		}
	}
}
