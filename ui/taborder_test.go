package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// focusName names the focused widget as the reviewer sees it.
func focusName(c *Console, f fyne.Focusable) string {
	switch f {
	case nil:
		return "nothing"
	case c.batches.search:
		return "search"
	case c.batches.all:
		return "All batches"
	case c.batches.list:
		return "batches"
	case c.items.held:
		return "held filter"
	case c.items.offline.check:
		return "offline filter"
	case c.items.needs:
		return "Needs my action"
	case c.items.status:
		return "status filter"
	case c.items.code:
		return "code filter"
	case c.items.table:
		return "items"
	}
	switch w := f.(type) {
	case *widget.Button:
		return "button " + w.Text
	case *tipButton:
		return "button " + w.Text
	}
	return fmt.Sprintf("%T", f)
}

// tabWalk presses Tab (or Shift+Tab) from the search until the focus comes
// back to it, and names each widget on the way.
func tabWalk(t *testing.T, c *Console, back bool) []string {
	t.Helper()
	c.apply(func() { c.win.Canvas().Focus(c.batches.search) })
	var names []string
	for range 60 {
		c.apply(func() {
			if back {
				c.win.Canvas().FocusPrevious()
			} else {
				c.win.Canvas().FocusNext()
			}
		})
		f := focused(c)
		if f == c.batches.search {
			return names
		}
		names = append(names, focusName(c, f))
	}
	t.Fatalf("Tab never came back to the search: %v", names)
	return nil
}

// Tab from the search follows the drawing: the batches (All batches, then
// the list), the items' filters in the order they are drawn (who holds
// them on the heading's line, then Needs my action, status, code), then the
// items; the column headings, buttons in the table, are not on the way.
// Shift+Tab walks the same way back.
func TestTabFollowsTheDrawingFromTheSearch(t *testing.T) {
	c := newTestConsole(t, twoBatches())
	fwd := tabWalk(t, c, false)
	want := []string{"All batches", "batches", "held filter", "Needs my action", "status filter", "code filter", "items"}
	if len(fwd) < len(want) || !slices.Equal(fwd[:len(want)], want) {
		t.Fatalf("Tab from the search: %v\nwant first %v", fwd, want)
	}
	for _, n := range fwd {
		for _, col := range c.items.cols {
			if h := c.items.headerText(col); h != "" && n == "button "+h {
				t.Fatalf("Tab reaches the column heading %q: %v", h, fwd)
			}
		}
	}
	back := tabWalk(t, c, true)
	slices.Reverse(back)
	if !slices.Equal(back, fwd) {
		t.Fatalf("Shift+Tab from the search:\n%v\nis not Tab's way back:\n%v", back, fwd)
	}
	t.Logf("Tab from the search: %s", strings.Join(fwd, ", "))
}
