package ui

import (
	"context"
	"fmt"
	"sort"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// "5 new items need you": after a sync, the items that need the
// reviewer now and did not before it, said in the strip as a link that
// shows exactly them.

// needsLimit is how many rows of the listing of what needs action a news
// check reads, before and after a sync.
const needsLimit = 5000

// needSnapshot is what needed the reviewer at one moment, as far as a
// read of the first needsLimit rows of the listing saw.
type needSnapshot struct {
	needs map[string]bool // the items that needed the reviewer
	read  []string        // every row read (needing or not), in the listing's order
	cut   bool            // the listing holds more: what sorts after the read is unknown
}

// needsYou reads what needs the reviewer, across all batches; nil before
// the first sync and when the read fails.
func (c *Console) needsYou(ctx context.Context) *needSnapshot {
	if st, err := c.wf.Connectivity(ctx); err != nil || st.LastSync.IsZero() {
		return nil // a first sync brings everything: that is no news
	}
	f := store.ItemFilter{NeedsAction: true, Limit: needsLimit + 1} // one more: was it cut?
	s := &needSnapshot{needs: map[string]bool{}}
	// Each row as it is read: only the ids are kept.
	if err := c.wf.EachItem(ctx, f, func(r review.ItemView) error {
		s.read = append(s.read, r.ID)
		if needsReviewer(r) {
			s.needs[r.ID] = true
		}
		return nil
	}); err != nil {
		return nil
	}
	s.cut = len(s.read) > needsLimit
	return s
}

// newlyNeeding lists, sorted, what needs the reviewer after and did not
// before; a failed read says nothing (nil): no claim of news.
//
// When the read before stopped at its limit, only the rows of the read
// after up to and including the last row of the read before still listed
// count: further down, a row moved up into the read after (because rows
// above it stopped needing action) may well have needed the reviewer
// before, out of sight. That takes the listing's order (store.ItemsQuery:
// newest batch first, then item id) to be the same for an item in both
// reads, which holds while the service keeps an item in its batch and a
// batch's creation time. When the two reads share no row, the rows after
// are all new (more new batches came than a read holds, after a long
// time offline): every row of the read before leaving the listing in one
// sync is far less likely.
func newlyNeeding(before, after *needSnapshot) []string {
	if before == nil || after == nil {
		return nil
	}
	end := len(after.read)
	if before.cut {
		seen := make(map[string]bool, len(before.read))
		for _, id := range before.read {
			seen[id] = true
		}
		last := -1
		for i, id := range after.read {
			if seen[id] {
				last = i
			}
		}
		if last >= 0 {
			end = last + 1
		}
	}
	var ids []string
	for _, id := range after.read[:end] {
		if after.needs[id] && !before.needs[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

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
