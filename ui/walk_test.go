package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
)

// The line in the document's place ("Loading the document…", or why it
// cannot be shown) reads across the panel. It was centred at its least
// width, which a wrapping label makes one letter: a PDF that took a while
// to decode showed "L o a d i n g" down the panel, over the text above.
func TestTheDocumentsLineReadsAcrossThePanel(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 300, 200, blue), review.DocumentVersion{})
	docs.add("itm_2", "image/png", cardPNG(t, 300, 200, red), review.DocumentVersion{})
	docs.errs["itm_3"] = errors.New("offline, and this document is not kept for offline review")
	gate := make(chan struct{})
	defer close(gate)
	docs.gates["itm_2"] = gate
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "DECODE_FAILED"), errorItem("itm_3", "DECODE_FAILED"))
	pv := c.panel.preview
	oneLine := widget.NewLabel("Loading").MinSize().Height
	// The held fetch last: Settle waits for every fetch.
	for _, id := range []string{"itm_3", "itm_2"} {
		c.apply(func() { c.panel.show(id) })
		if id == "itm_2" {
			waitFor(t, docs, id) // held: it stays loading
		} else {
			c.Settle()
		}
		if !pv.line.Visible() || pv.line.Text == "" {
			t.Fatalf("%s: no line in the document's place (state %q)", id, pv.state)
		}
		var area, w, h float32
		c.apply(func() { area, w, h = pv.content.Size().Width, pv.line.Size().Width, pv.line.Size().Height })
		// One line of its words, not a column of letters: as wide as the
		// area (less the padding) and no taller than two lines of text.
		if w < area-4*theme.Padding() || h > 2*oneLine {
			t.Fatalf("%s: the line %q is %.0f×%.0f in an area %.0f wide: it does not read across", id, pv.line.Text, w, h, area)
		}
		if strings.Contains(pv.line.Text, "\n") {
			t.Fatalf("%s: %q", id, pv.line.Text)
		}
	}
}

// Two reviewers on one reference service: after ben's upload of a file
// that the service cannot read, the item needs a reviewer again, and
// ana's next sync in the window says so: whether she had the item in view
// or not, and when her own note on it (a claim, the note, a read of the
// item: each answer written to her cache) brought the change in first.
func TestBensChangeIsNewsInAnasWindow(t *testing.T) {
	for _, mode := range []string{"away", "looking", "noting"} {
		t.Run(mode, func(t *testing.T) {
			srv, ana, ben := anaAndBen(t, screenapi.Options{})
			t.Setenv("LANG", "en_US.UTF-8")
			a := test.NewTempApp(t)
			w := test.NewTempWindow(t, nil)
			w.Resize(fyne.NewSize(1280, 800))
			c := NewConsole(w, workflowOf(ana), Options{Prefs: a.Preferences(), Documents: ana.Documents})
			ft := &fakeTimers{c: c}
			c.panel.team.after = ft.after
			c.apply(c.reload)
			c.Settle()
			t.Cleanup(func() { c.Settle(); c.Close() })
			ctx := context.Background()

			id := srv.FindCode("DECODE_FAILED")
			if res, err := ben.Actions.RequestFile(ctx, id, "Please send a sharper photo."); err != nil || res.Action.State != policy.ActionDone {
				t.Fatalf("ben's file request: %+v %v", res, err)
			}
			c.apply(c.onSync)
			c.Settle()
			if c.strip.news.Visible() {
				t.Fatalf("news after ben's request: %q", c.strip.news.Text)
			}
			if mode != "away" { // ana has the item on screen, waiting for its file
				c.apply(func() { c.batches.all.SetChecked(true) })
				c.Settle()
				row := -1
				c.apply(func() {
					for i, r := range c.items.rows {
						if r.ID == id {
							row = i
						}
					}
				})
				if row < 0 {
					t.Fatalf("%s is not listed", id)
				}
				c.apply(func() { c.items.move(row - c.items.row) })
				c.Settle()
				if c.panel.itemID != id {
					t.Fatalf("ana is on %q, not %s", c.panel.itemID, id)
				}
			}
			srv.Script(id, screenapi.Outcome{Code: "DECODE_FAILED"})
			if res, err := ben.Actions.Replace(ctx, id, "scan.png", cardPNG(t, 30, 20, blue), review.ReplaceOptions{}); err != nil || res.Action.State != policy.ActionDone {
				t.Fatalf("ben's upload: %+v %v", res, err)
			}
			// What the window does between syncs while she looks: the
			// panel is drawn again.
			c.apply(c.reload)
			c.Settle()
			if mode == "noting" {
				c.apply(func() { test.Type(c.panel.team.entry, "The customer says the new scan is on its way.") })
				c.apply(func() { test.Tap(c.panel.team.add) })
				c.Settle()
				if n := srv.Arrivals(screenapi.EPNote); n != 1 {
					t.Fatalf("%d notes arrived", n)
				}
			}
			c.apply(c.onSync)
			c.Settle()
			if !c.strip.news.Visible() || !strings.HasPrefix(c.strip.news.Text, "1 new item needs you") || !strings.HasSuffix(c.strip.news.Text, ": show it") || fmt.Sprint(c.strip.newIDs) != fmt.Sprint([]string{id}) {
				t.Fatalf("after ben's upload came back unreadable: news visible %v %q %v, want %s", c.strip.news.Visible(), c.strip.news.Text, c.strip.newIDs, id)
			}
		})
	}
}

// With no widget focused (the window as it opens), the keys that jump in
// the items work as the sheet says, as they do once the table has the
// focus: the window's own key handler knew only ↑, ↓ and Enter.
func TestTheJumpKeysWorkBeforeTheTableHasTheFocus(t *testing.T) {
	var rows []review.ItemView
	for i := range 40 {
		rows = append(rows, errorItem(fmt.Sprintf("itm_%02d", i), "DECODE_FAILED"))
	}
	c := newTestConsole(t, &fakeWorkflow{items: rows})
	if f := c.win.Canvas().Focused(); f != nil {
		t.Fatalf("focused at start: %T", f)
	}
	at := func() int {
		var r int
		c.apply(func() { r = c.items.row })
		return r
	}
	for _, step := range []struct {
		key  fyne.KeyName
		want int
	}{{fyne.KeyEnd, 39}, {fyne.KeyHome, 0}, {fyne.KeyPageDown, 15}, {fyne.KeyPageUp, 0}, {fyne.KeyDown, 1}} {
		c.apply(func() { pressOn(c.win, step.key) })
		c.Settle()
		if got := at(); got != step.want || c.panel.itemID != rows[step.want].ID {
			t.Fatalf("%s: row %d (panel on %q), want %d", step.key, got, c.panel.itemID, step.want)
		}
	}
}

// r on an item someone else holds says so where it is seen: at 1280×800
// the panel's message sits below the document, out of view, and the key
// seemed to do nothing (seen in the screenshots' walk); the strip says it
// too.
func TestAKeyOnAHeldItemIsAnsweredInView(t *testing.T) {
	until := time.Now().Add(10 * time.Minute)
	held := errorItem("itm_1", "CLASSIFIER_TIMEOUT")
	held.Claim = &policy.Claim{Reviewer: "ben", ExpiresAt: until}
	held.Holder = held.Claim
	c := newTeamConsole(t, newTeamFake(held))
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "r") })
	c.Settle()
	want := "Ben is on this until " + policy.UntilText(until, time.Now())
	if s := c.strip.pages.Text; !strings.Contains(s, want) || !strings.Contains(s, "nothing was sent") {
		t.Fatalf("the strip says %q, want who holds it (%q)", s, want)
	}
}

// r, f or u on an item where that action is not offered says why, in the
// strip, and opens nothing: the keys did nothing at all before, and a new
// reviewer took them for broken.
func TestAKeyWhoseActionIsNotOfferedSaysWhy(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{items: []review.ItemView{
		scoredItem("itm_1", 20, policy.RecommendForward), errorItem("itm_2", "CLASSIFIER_TIMEOUT"),
	}})
	for _, k := range []struct {
		row  int
		key  string
		want string
	}{{0, "r", "nothing to re-submit"}, {0, "f", "a new file is requested only for an item in error"}, {1, "u", "re-submit it instead"}} {
		c.apply(func() { c.items.move(k.row - c.items.row) })
		c.Settle()
		c.apply(func() { c.strip.say("") })
		c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), k.key) })
		c.Settle()
		if top := c.win.Canvas().Overlays().Top(); top != nil {
			t.Fatalf("%s opened a dialog", k.key)
		}
		if s := c.strip.pages.Text; !strings.Contains(s, k.want) {
			t.Fatalf("%s on row %d: the strip says %q, want %q", k.key, k.row, s, k.want)
		}
	}
}
