package ui

import (
	"context"
	"fmt"

	"github.com/trustscreen/reviewer/store"
)

// "5 new items need you" (issue 12): after a sync, the items that need the
// reviewer now and did not before it, said in the strip with the key that
// shows them (Ctrl+1: needs my action, oldest first).

// needsYou is the set of items that need the reviewer, across all batches.
func (c *Console) needsYou(ctx context.Context) map[string]bool {
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
