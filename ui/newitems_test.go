package ui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// snap is a news check's read: the ids in listing order, those marked
// with * needing the reviewer.
func snap(cut bool, rows ...string) *needSnapshot {
	s := &needSnapshot{needs: map[string]bool{}, cut: cut}
	for _, r := range rows {
		id, needs := strings.CutSuffix(r, "*")
		s.read = append(s.read, id)
		if needs {
			s.needs[id] = true
		}
	}
	return s
}

func TestNewItemsThatNeedYou(t *testing.T) {
	before := snap(false, "a*", "b*", "w")
	after := snap(false, "d*", "b*", "c*", "w*")
	if ids := newlyNeeding(before, after); fmt.Sprint(ids) != "[c d w]" || newItemsText(len(ids)) != "3 new items need you: show them" {
		t.Fatalf("%v %q", ids, newItemsText(len(ids)))
	}
	if newlyNeeding(nil, after) != nil || newlyNeeding(before, nil) != nil || newItemsText(0) != "" ||
		newItemsText(1) != "1 new item needs you: show it" {
		t.Fatal("a failed read claimed news")
	}
}

// With more rows needing action than a news check reads, a row that moves
// up into the read after the sync (rows above it were dealt with) is not
// news: it may have needed the reviewer before, below what was read.
func TestNewsStopsWhereTheReadBeforeTheSyncStopped(t *testing.T) {
	before := snap(true, "a*", "b*", "c*", "d*")
	// The sync brought n (a new batch, on top) and a teammate dealt with
	// b: e moves up into the read.
	after := snap(true, "n*", "a*", "c*", "d*", "e*")
	if ids := newlyNeeding(before, after); fmt.Sprint(ids) != "[n]" {
		t.Fatalf("news %v, want [n]", ids)
	}
	// The last row read before is gone too: the news stops at the last
	// row of the read before that is still listed.
	after = snap(true, "n*", "a*", "c*", "x*", "e*")
	before = snap(true, "a*", "c*", "x", "d*")
	if ids := newlyNeeding(before, after); fmt.Sprint(ids) != "[n x]" {
		t.Fatalf("news %v, want [n x]", ids)
	}
	// The read before was cut, the one after is not (b was dealt with,
	// and all that needs action now fits): d, from below, is no news.
	if ids := newlyNeeding(snap(true, "a*", "b*", "c*"), snap(false, "a*", "c*", "d*")); len(ids) != 0 {
		t.Fatalf("news %v, want none", ids)
	}
	// Nothing of the read before is listed any more: more new batches came
	// than a read holds; all of the read after is news.
	if ids := newlyNeeding(snap(true, "a*", "b*"), snap(true, "e*", "f*", "g")); fmt.Sprint(ids) != "[e f]" {
		t.Fatalf("news %v, want [e f]", ids)
	}
}

// The news check reads one row more than its limit, to know whether the
// listing holds more than it read; items dealt with near the top of a long
// listing bring no news from below it.
func TestNewsOfALongListing(t *testing.T) {
	var items []review.ItemView
	for i := range needsLimit + 3 {
		items = append(items, errorItem(fmt.Sprintf("itm_%05d", i), "DECODE_FAILED"))
	}
	wf := &fakeWorkflow{items: items}
	wf.status.LastSync = time.Now().Add(-time.Hour) // not the first sync
	c := newTestConsole(t, wf)
	ctx := context.Background()
	before := c.needsYou(ctx)
	if before == nil || !before.cut || len(before.read) != needsLimit+1 {
		t.Fatalf("before: %+v", before)
	}
	// The sync: a teammate dealt with the first two items, and a new one
	// came on top.
	wf.mu.Lock()
	wf.items = append([]review.ItemView{errorItem("itm_new", "DECODE_FAILED")}, wf.items[2:]...)
	wf.mu.Unlock()
	if ids := newlyNeeding(before, c.needsYou(ctx)); fmt.Sprint(ids) != "[itm_new]" {
		t.Fatalf("news %v, want [itm_new]", ids)
	}
	// A listing of exactly the limit is read whole: not cut.
	wf.mu.Lock()
	wf.items = wf.items[:needsLimit]
	wf.mu.Unlock()
	if s := c.needsYou(ctx); s == nil || s.cut || len(s.read) != needsLimit {
		t.Fatal("a listing of exactly the limit was taken as cut")
	}
}

// After a sync, "2 new items need you" is a link; a click shows
// exactly those items, across all batches; picking a batch by hand shows
// all of it again.
func TestTheNewsOfASyncIsALinkThatShowsExactlyThem(t *testing.T) {
	wf := twoBatches()
	wf.status.LastSync = time.Now().Add(-time.Hour) // not the first sync: news is news
	c := newTestConsole(t, wf)
	if c.strip.news.Visible() {
		t.Fatal("news before any sync")
	}
	fresh := []review.ItemView{
		inBatch(errorItem("n48", "CLASSIFIER_TIMEOUT"), "bat_48", "CUST-7048"),
		inBatch(errorItem("n43", "DECODE_FAILED"), "bat_43", "CUST-7043"),
		inBatch(scoredItem("s43", 20, policy.RecommendForward), "bat_43", "CUST-7043"), // needs nobody
	}
	wf.afterSync = append(append([]review.ItemView{}, wf.items...), fresh...)
	c.apply(c.onSync)
	c.Settle()
	if !c.strip.news.Visible() || c.strip.news.Text != "2 new items need you: show them" {
		t.Fatalf("news link: visible %v, %q", c.strip.news.Visible(), c.strip.news.Text)
	}
	if strings.Contains(c.strip.pages.Text, "Ctrl+1") {
		t.Fatalf("the strip still points at a key: %q", c.strip.pages.Text)
	}
	link := c.strip.news
	c.apply(func() { test.TapAt(link, fyne.NewPos(link.Size().Width/2, link.Size().Height/2)) })
	c.Settle()
	var got []string
	for _, r := range c.items.rows {
		got = append(got, r.ID)
	}
	sort.Strings(got)
	f := wf.lastFilter()
	if fmt.Sprint(got) != "[n43 n48]" || f.BatchID != "" || !f.NeedsAction || fmt.Sprint(f.IDs) != "[n43 n48]" {
		t.Fatalf("the click shows %v (filter %+v)", got, f)
	}
	if !strings.Contains(c.items.count.Text, "new from the last sync") {
		t.Fatalf("count %q does not say the list is the news", c.items.count.Text)
	}
	// A batch picked by hand: all of it, not only its news.
	c.apply(func() { c.batches.list.Select(c.batches.index("bat_43")) })
	c.Settle()
	if f := wf.lastFilter(); f.IDs != nil || f.BatchID != "bat_43" || len(c.items.rows) != 3 {
		t.Fatalf("after picking a batch: filter %+v, %d rows", f, len(c.items.rows))
	}
	// A sync with nothing new takes the link away.
	c.apply(c.onSync)
	c.Settle()
	if c.strip.news.Visible() {
		t.Fatalf("news after a sync that brought none: %q", c.strip.news.Text)
	}
}
