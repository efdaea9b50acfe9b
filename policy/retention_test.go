package policy_test

import (
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// TestMayForget writes the retention rule out by hand: the age of the last
// touch against the period, then every status, each state of an open
// action and of an open note.
func TestMayForget(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	keep := policy.DefaultRetention
	old, fresh := now.Add(-keep-time.Hour), now.Add(-keep+time.Hour)
	item := func(st policy.Status, code policy.Code) policy.Item {
		return policy.Item{ID: "i1", Status: st, ErrorCode: code}
	}
	scored := policy.RetainedItem{Item: item(policy.StatusScored, "")}
	type tc struct {
		name string
		b    policy.RetainedBatch
		keep time.Duration
		now  time.Time
		want bool
	}
	cases := []tc{
		{"scored, untouched past the period", policy.RetainedBatch{Items: []policy.RetainedItem{scored}, TouchedAt: old}, keep, now, true},
		{"scored, touched exactly one period ago", policy.RetainedBatch{Items: []policy.RetainedItem{scored}, TouchedAt: now.Add(-keep)}, keep, now, true},
		{"scored, touched within the period", policy.RetainedBatch{Items: []policy.RetainedItem{scored}, TouchedAt: fresh}, keep, now, false},
		{"no period: keep everything", policy.RetainedBatch{Items: []policy.RetainedItem{scored}, TouchedAt: old}, 0, now, false},
		{"a batch without items, untouched", policy.RetainedBatch{TouchedAt: old}, keep, now, true},
		{"touched in the future (a clock set back)", policy.RetainedBatch{Items: []policy.RetainedItem{scored}, TouchedAt: now.Add(time.Hour)}, keep, now, false},
		{"pending", policy.RetainedBatch{Items: []policy.RetainedItem{{Item: item(policy.StatusPending, "")}}, TouchedAt: old}, keep, now, true},
		{"awaiting the customer's file", policy.RetainedBatch{Items: []policy.RetainedItem{{Item: item(policy.StatusAwaitingFile, "")}}, TouchedAt: old}, keep, now, true},
		{"invalid answer", policy.RetainedBatch{Items: []policy.RetainedItem{{Item: item(policy.StatusInvalid, policy.CodeInvalidResponse)}}, TouchedAt: old}, keep, now, true},
		{"an error a re-run may help needs her", policy.RetainedBatch{Items: []policy.RetainedItem{scored, {Item: item(policy.StatusError, policy.CodeClassifierTimeout)}}, TouchedAt: old}, keep, now, false},
		{"an error that needs a new file needs her", policy.RetainedBatch{Items: []policy.RetainedItem{{Item: item(policy.StatusError, policy.CodeDecodeFailed)}}, TouchedAt: old}, keep, now, false},
	}
	for _, st := range []policy.ActionState{policy.ActionQueued, policy.ActionSending, policy.ActionUnknown} {
		cases = append(cases,
			tc{"an action " + string(st), policy.RetainedBatch{Items: []policy.RetainedItem{scored, {Item: item(policy.StatusScored, ""), OpenAction: st}}, TouchedAt: old}, keep, now, false},
			tc{"a note " + string(st), policy.RetainedBatch{Items: []policy.RetainedItem{{Item: item(policy.StatusAwaitingFile, ""), OpenNote: st}}, TouchedAt: old}, keep, now, false})
	}
	for _, c := range cases {
		if got := policy.MayForget(c.b, c.now, c.keep); got != c.want {
			t.Errorf("%s: may forget %v, want %v", c.name, got, c.want)
		}
	}
}
