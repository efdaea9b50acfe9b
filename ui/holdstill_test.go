package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// panelWidth lays the window out again, as a frame does after its content
// changed, and returns the item panel's width.
func panelWidth(c *Console) float32 {
	var w float32
	c.apply(func() {
		c.win.Content().Refresh()
		w = c.panel.content.Size().Width
	})
	return w
}

// withinPanel reports whether o is drawn whole inside the item panel, in
// view: not cut across, nor below the panel's upper part (nor scrolled).
func withinPanel(c *Console, o fyne.CanvasObject) bool {
	d := fyne.CurrentApp().Driver()
	pp, op := d.AbsolutePositionForObject(c.panel.content), d.AbsolutePositionForObject(o)
	sp := d.AbsolutePositionForObject(c.panel.scroll)
	upper := c.panel.split.Leading
	bottom := d.AbsolutePositionForObject(upper).Y + upper.Size().Height
	return o.Size().Width >= o.MinSize().Width-0.5 && o.Size().Height >= o.MinSize().Height-0.5 &&
		op.X >= pp.X-0.5 && op.X+o.Size().Width <= pp.X+c.panel.content.Size().Width+0.5 &&
		op.Y >= sp.Y+c.panel.scroll.Size().Height-0.5 && op.Y+o.Size().Height <= bottom+0.5
}

// The screen holds still: the panel's width is the same whether a
// document loads, shows (with its caption), cannot be shown or clears;
// only her hand moves the divider. At 1280x800 the panel's action buttons
// are drawn whole.
func TestThePanelHoldsStillAsDocumentsComeAndGo(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 300, 200, blue), review.DocumentVersion{})
	docs.add("itm_2", "image/png", cardPNG(t, 300, 200, red), review.DocumentVersion{})
	docs.errs["itm_2"] = errors.New("offline, and this document is not kept for offline review; it shows when the service answers again")
	c := docConsole(t, docs, errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2_with_a_much_longer_identifier_than_usual", "DECODE_FAILED"), errorItem("itm_2", "DECODE_FAILED"))
	if c.panel.preview.state != "shown" {
		t.Fatalf("first document: %q", c.panel.preview.state)
	}
	want := panelWidth(c)
	if want <= 0 {
		t.Fatal("the panel is not laid out")
	}
	for _, b := range []fyne.CanvasObject{c.panel.resubmit, c.panel.request, c.panel.upload} {
		if !withinPanel(c, b) {
			t.Fatalf("a button is clipped: %v at min %v in a panel %v wide", b.Size(), b.MinSize(), want)
		}
	}
	for step, move := range []func(){
		func() { c.items.move(1) },  // a long id, no document
		func() { c.items.move(1) },  // a document that cannot be shown
		func() { c.items.move(-2) }, // back to the shown one
		func() { c.panel.show("") }, // nothing selected
	} {
		c.apply(move)
		c.Settle()
		if got := panelWidth(c); got != want {
			t.Fatalf("step %d (%q, document %q): the panel is %v wide, was %v", step, c.panel.itemID, c.panel.preview.state, got, want)
		}
	}
}

// Who holds an item is visible where she looks: in its row at 1280x800
// with the panel open (where the Action column is dropped), with until
// when in the cell's tooltip, and in the panel above the picture.
func TestWhoHoldsAnItemShowsInItsRowAndAboveThePicture(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 300, 200, blue), review.DocumentVersion{})
	held := errorItem("itm_1", "CLASSIFIER_TIMEOUT")
	held.Holder = &policy.Claim{Reviewer: "ben", ExpiresAt: time.Now().Add(10 * time.Minute)}
	held.Claim = held.Holder
	wf := newTeamFake(held, errorItem("itm_2", "CLASSIFIER_TIMEOUT"))
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences(), Documents: docs})
	c.apply(c.reload)
	c.Settle()
	c.apply(c.panel.preview.arm)
	c.Settle()
	if c.panelOff {
		t.Fatal("the panel is not open at 1280x800")
	}
	// In the batch, and across all batches (where the customer's column
	// leaves no room for the Action column).
	for _, all := range []bool{false, true} {
		c.apply(func() { c.batches.all.SetChecked(all) })
		c.Settle()
		found, hint := "", ""
		for col := range c.items.cols {
			if cell := c.tipCell(0, col); strings.Contains(cell.Text, "held: Ben") {
				found, hint = cell.Text, cell.hint
			}
		}
		if found == "" || !strings.HasPrefix(hint, "Ben is on this until") {
			t.Fatalf("all batches %v: the held row says %q (tooltip %q); columns %d", all, found, hint, len(c.items.cols))
		}
		// The other row says nobody.
		for col := range c.items.cols {
			if cell := c.tipCell(1, col); strings.Contains(cell.Text, "held") {
				t.Fatalf("a free row says %q", cell.Text)
			}
		}
	}
	claim := c.panel.team.claim
	if !strings.HasPrefix(claim.Text, "Ben is on this until") || !claim.Visible() {
		t.Fatalf("panel claim line %q", claim.Text)
	}
	c.apply(func() { c.win.Content().Refresh() })
	d := fyne.CurrentApp().Driver()
	if cy, py := d.AbsolutePositionForObject(claim).Y, d.AbsolutePositionForObject(c.panel.preview.content).Y; cy >= py {
		t.Fatalf("the claim line is at y %v, the picture at %v", cy, py)
	}
}

// A filter beside the others keeps the items by who holds them: free,
// mine, others'; it asks the cache for what it names, for the reviewer.
func TestTheHeldFilterAsksForFreeMineOrOthers(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsole(t, wf)
	for i, want := range []store.HeldFilter{"", store.HeldFree, store.HeldMine, store.HeldOthers} {
		c.apply(func() { c.items.held.SetSelectedIndex(i) })
		c.Settle()
		wf.mu.Lock()
		last := wf.filters[len(wf.filters)-1]
		wf.mu.Unlock()
		if last.Held != want || (want != "" && last.Me != "ana") {
			t.Fatalf("%q chosen: the cache was asked for %q of %q", c.items.held.Selected, last.Held, last.Me)
		}
	}
}
