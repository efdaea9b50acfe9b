package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/review"
)

// The table reads the cache a page at a time as it scrolls, never the
// whole listing at once.
func TestItemsTablePagesAsItScrolls(t *testing.T) {
	var items []review.ItemView
	for i := range 2*pageRows + 37 {
		items = append(items, errorItem(fmt.Sprintf("itm_%05d", i), "DECODE_FAILED"))
	}
	wf := &fakeWorkflow{items: items}
	c := newTestConsole(t, wf)
	c.apply(func() { c.batches.all.SetChecked(true) }) // every batch: the long listing
	c.Settle()
	if n := len(c.items.rows); n != pageRows || !strings.Contains(c.items.count.Text, "more as you scroll") {
		t.Fatalf("first read %d rows, count %q", n, c.items.count.Text)
	}
	for want := 2 * pageRows; ; want = len(items) {
		c.apply(func() { c.cell(len(c.items.rows)-1, 0) }) // the table draws the last row read
		c.Settle()
		if n := len(c.items.rows); n != want {
			t.Fatalf("after scrolling: %d rows, want %d", n, want)
		}
		if want == len(items) {
			break
		}
	}
	if c.items.more || c.items.count.Text != plural(len(items), "item") {
		t.Fatalf("all read: more %v, count %q", c.items.more, c.items.count.Text)
	}
	for i, r := range c.items.rows {
		if r.ID != items[i].ID {
			t.Fatalf("row %d is %s, want %s", i, r.ID, items[i].ID)
		}
	}
	// Every read of all batches asked for one page.
	wf.mu.Lock()
	defer wf.mu.Unlock()
	for _, f := range wf.filters {
		if f.BatchID == "" && f.Limit != pageRows {
			t.Fatalf("a read of %d rows", f.Limit)
		}
	}
}
