package ui

import (
	"context"
	"fmt"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// "5 new items need you" (issue 12): after a sync, the items that need the
// reviewer now and did not before it, said in the strip with the key that
// shows them (Ctrl+1: needs my action, oldest first).

// needsYou is the set of items that need the reviewer, across all
// batches; nil before the first sync.
func (c *Console) needsYou(ctx context.Context) map[string]bool {
	if st, err := c.wf.Status(ctx); err != nil || st.LastSync.IsZero() {
		return nil // a first sync brings everything: that is no news
	}
	f := store.ItemFilter{NeedsAction: true, Limit: 5000}
	rows, err := c.wf.Items(ctx, f)
	if err != nil {
		return nil
	}
	out := make(map[string]bool, len(rows))
	for _, r := range rows {
		if needsReviewer(r) {
			out[r.ID] = true
		}
	}
	return out
}

// newlyNeeding counts what needs the reviewer after and did not before; a
// failed read before says nothing (nil): no claim of news.
func newlyNeeding(before, after map[string]bool) int {
	if before == nil {
		return 0
	}
	n := 0
	for id := range after {
		if !before[id] {
			n++
		}
	}
	return n
}

func newItemsText(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " 1 new item needs you (Ctrl+1 shows it)."
	}
	return fmt.Sprintf(" %d new items need you (Ctrl+1 shows them).", n)
}

// AgesWorkflow tells how long each batch's longest-waiting item has waited
// (a *review.Service has it).
type AgesWorkflow interface {
	OldestWaiting(ctx context.Context, batchIDs []string) (map[string]review.Aged, error)
}

// batchAges reads the oldest waiting age of the listed batches; nil when
// the workflow cannot say.
func (c *Console) batchAges(ctx context.Context, rows []store.BatchSummary) map[string]review.Aged {
	aw, ok := c.wf.(AgesWorkflow)
	if !ok || len(rows) == 0 {
		return nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	ages, err := aw.OldestWaiting(ctx, ids)
	if err != nil {
		return nil
	}
	return ages
}

// withAge adds a batch's oldest wait to its second line when it is past
// the warning threshold: "oldest 6 d · overdue".
func withAge(line string, a review.Aged) string {
	if a.AgeLevel != policy.AgeWarn && a.AgeLevel != policy.AgeOverdue {
		return line
	}
	if line == "" {
		return "oldest " + a.Age
	}
	return line + " · oldest " + a.Age
}
