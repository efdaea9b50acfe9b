package ui

import (
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

func TestNewItemsText(t *testing.T) {
	if newItemsText(0) != "" || newItemsText(1) != "1 new item needs you: show it" || newItemsText(3) != "3 new items need you: show them" {
		t.Fatalf("%q %q %q", newItemsText(0), newItemsText(1), newItemsText(3))
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
	// (The link names the customers once they are read: notify.go.)
	if !c.strip.news.Visible() || c.strip.news.Text != "2 new items need you in CUST-7043 and CUST-7048: show them" {
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
