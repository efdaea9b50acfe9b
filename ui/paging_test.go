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

// Scrolling far holds a bounded number of rows: the pages she has
// scrolled past are dropped, and read again when she scrolls back; the
// selected row and the panel stay on one item as the rows held move.
func TestItemsTableHoldsABoundedWindowOfPages(t *testing.T) {
	const pages = 9
	var items []review.ItemView
	for i := range pages*pageRows + 37 {
		items = append(items, errorItem(fmt.Sprintf("itm_%05d", i), "DECODE_FAILED"))
	}
	wf := &fakeWorkflow{items: items}
	c := newTestConsole(t, wf)
	c.apply(func() { c.batches.all.SetChecked(true) })
	c.Settle()
	bound := 3 * pageRows
	oneItem := func(when string) {
		t.Helper()
		c.apply(func() {
			if r := c.items.row; r >= 0 && c.items.rows[r].ID != c.panel.itemID {
				t.Fatalf("%s: row %d is %s, the panel shows %s", when, r, c.items.rows[r].ID, c.panel.itemID)
			}
		})
	}
	for range pages + 2 {
		c.apply(func() { c.items.move(len(c.items.rows)) }) // End: the last row held, then the next page
		c.Settle()
		if n := len(c.items.rows); n > bound {
			t.Fatalf("%d rows held after scrolling, at most %d", n, bound)
		}
		oneItem("scrolling on")
	}
	var count, last string
	c.apply(func() { count, last = c.items.count.Text, c.items.rows[len(c.items.rows)-1].ID })
	if count != plural(len(items), "item") || last != items[len(items)-1].ID {
		t.Fatalf("at the end: count %q, last row %s", count, last)
	}
	// Back towards the start: the dropped pages are read again, in order.
	for c.items.base > 0 {
		base := c.items.base
		c.apply(func() { c.items.move(-len(c.items.rows)) }) // to the first row held, then the page before
		c.Settle()
		if c.items.base >= base || len(c.items.rows) > bound {
			t.Fatalf("scrolling back: base %d then %d, %d rows held", base, c.items.base, len(c.items.rows))
		}
		oneItem("scrolling back")
	}
	for i, r := range c.items.rows {
		if r.ID != items[i].ID {
			t.Fatalf("row %d is %s, want %s", i, r.ID, items[i].ID)
		}
	}
}
