package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// TestNeedsActionFollowsPolicy holds the store's "needs action" SQL (the
// listing's filter, and what `next` picks from) to policy.NeedsReviewer on
// a real cache: one item for every status (and, for an error, a code a
// re-run may help and one it cannot) with no action and with a newest
// action in every state.
func TestNeedsActionFollowsPolicy(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	db.SetClock(func() time.Time { return t0 })
	type combo struct {
		status policy.Status
		code   policy.Code
		state  policy.ActionState // of the newest action, "" when none
	}
	var items []policy.Item
	combos := map[string]combo{}
	for _, st := range policy.Statuses() {
		codes := []policy.Code{""}
		switch st {
		case policy.StatusError:
			codes = []policy.Code{policy.CodeClassifierTimeout, policy.CodeDecodeFailed}
		case policy.StatusInvalid:
			codes = []policy.Code{policy.CodeInvalidResponse}
		}
		for _, code := range codes {
			for _, state := range append([]policy.ActionState{""}, policy.ActionStates()...) {
				id := fmt.Sprintf("i%03d", len(items))
				it := scored(id, "b1", 40, t0)
				if st != policy.StatusScored {
					it.Status, it.ErrorCode, it.RiskScore, it.Recommendation, it.Layers = st, code, nil, "", nil
					if st == policy.StatusInvalid {
						it.Problem = "no score"
					}
				}
				items = append(items, it)
				combos[id] = combo{st, code, state}
			}
		}
	}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, items...)}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, it := range items {
		c := combos[it.ID]
		if c.state != "" {
			a, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: it.ID, Kind: policy.ActionResubmit, Key: "k-" + it.ID, Reviewer: "ana"}, nil, allow)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Exec(ctx, fmt.Sprintf(`UPDATE actions SET state = '%s', sends = 1 WHERE id = %d`, c.state, a.ID)); err != nil {
				t.Fatal(err)
			}
		}
		sit, err := db.Outbox.Situation(ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		if sit.Item.Status != c.status || sit.OpenAction.Open() != c.state.Open() {
			t.Fatalf("%s stored as %s with open action %q, want %+v", it.ID, sit.Item.Status, sit.OpenAction, c)
		}
		if policy.NeedsReviewer(sit) {
			want = append(want, it.ID)
		}
	}
	if len(want) == 0 || len(want) == len(items) {
		t.Fatalf("policy says %d of %d items need the reviewer: the test covers nothing", len(want), len(items))
	}
	rows, err := db.Items.Items(ctx, store.ItemFilter{NeedsAction: true})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range rows {
		listed = append(listed, r.ID)
	}
	slices.Sort(listed)
	next, err := db.Team.NextCandidates(ctx, "ana", t0, len(items)+1)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(next)
	for name, got := range map[string][]string{"the needs-action listing": listed, "next's candidates": next} {
		if !slices.Equal(got, want) {
			for _, it := range items {
				if slices.Contains(got, it.ID) != slices.Contains(want, it.ID) {
					c := combos[it.ID]
					t.Errorf("%s: %s %s with newest action %q: listed %v, policy says %v",
						name, c.status, c.code, c.state, slices.Contains(got, it.ID), slices.Contains(want, it.ID))
				}
			}
		}
	}
}
