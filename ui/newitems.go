package ui

import (
	"fmt"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// "5 new items need you": after a sync, the items that need the
// reviewer now and did not before it (review.SyncProgress.NewItems), said
// in the strip as a link that shows exactly them.

// newItemsText is the words of the link that shows the news.
func newItemsText(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 new item needs you: show it"
	}
	return fmt.Sprintf("%d new items need you: show them", n)
}

// newItemsView is the view the link applies: exactly the items of the
// news that still need the reviewer, across all batches, newest first.
func newItemsView(ids []string) (review.View, store.ItemFilter) {
	v := review.View{Name: "New items that need you", Filter: review.ViewFilter{NeedsAction: true, SortBy: "since", Desc: true}}
	f := store.ItemFilter{NeedsAction: true, SortBy: "since", Desc: true}
	f.IDs = append([]string{}, ids...)
	return v, f
}

// showNews shows the link to the news of the last sync, or hides it.
func (s *statusStrip) showNews(ids []string) {
	s.newIDs = ids
	if len(ids) == 0 {
		s.news.Hide()
	} else {
		s.news.SetText(newItemsText(len(ids)))
		s.news.Show()
	}
	s.row2.Refresh() // lays the row out again: the link takes its room
}

// onNews shows exactly the new items that need the reviewer.
func (c *Console) onNews() {
	if len(c.strip.newIDs) == 0 || c.win.Canvas().Overlays().Top() != nil {
		return
	}
	c.applyView(newItemsView(c.strip.newIDs))
}

// scope is what the reviewer picks by hand; a change of it ends a view's
// list of ids (the news), which would otherwise hide items without a word.
type scope struct {
	batchID     string
	status      policy.Status
	code        policy.Code
	needsAction bool
}

func scopeOf(f store.ItemFilter) scope {
	return scope{batchID: f.BatchID, status: f.Status, code: f.Code, needsAction: f.NeedsAction}
}

// keepIDs drops the view's list of ids from f (and from the view) once the
// reviewer picked another batch or filter than the view's.
func (c *Console) keepIDs(f *store.ItemFilter) {
	if c.view.extra.IDs == nil || c.view.scope == nil || scopeOf(*f) == *c.view.scope {
		return
	}
	c.view = viewState{}
	f.TriageFilter = store.TriageFilter{}
}
