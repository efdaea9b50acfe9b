package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// paintedTexts is every text Fyne would paint under o, as its painter keys
// the texture it keeps: words, size, style and colour.
func paintedTexts(o fyne.CanvasObject) []string {
	var out []string
	eachText(o, func(t *canvas.Text) {
		if t.Text != "" && t.Text != " " {
			out = append(out, fmt.Sprintf("%q %v %+v %v", t.Text, t.TextSize, t.TextStyle, t.Color))
		}
	})
	return out
}

func wordsTexts(w *itemWords) (out []string) {
	for _, o := range w.objects() {
		out = append(out, paintedTexts(o)...)
	}
	return out
}

// The rows beside hers are drawn ahead, out of sight, once she rests on an
// item: when she moves one row, every line the panel then draws is a text
// Fyne has already painted (the same words, size, style and colour, broken
// at the same width), so the frame that answers her key rasterises none.
// They are painted once, then hidden: no other frame draws them.
func TestTheRowsBesideHersAreDrawnAheadOutOfSight(t *testing.T) {
	scored := scoredItem("itm_3", 91, policy.RecommendReject)
	scored.FileName = "a-selfie-with-a-rather-long-name-that-wraps-in-the-panel.jpg"
	held := errorItem("itm_4", "FORENSICS_UNREACHABLE")
	held.Holder = &policy.Claim{Reviewer: "ben", ExpiresAt: time.Now().Add(10 * time.Minute)}
	c := docConsole(t, newFakeDocs(), errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "UNSUPPORTED_MEDIA_TYPE"),
		scored, held, errorItem("itm_5", "QUANTUM_FLUX_CAPACITOR"))
	a := c.panel.ahead
	if c.panelOff {
		t.Fatal("the panel is not open at 1280x800")
	}
	frames := askedFrames(c)
	for _, step := range []struct {
		rest, move int
	}{{1, 1}, {2, 1}, {3, -1}, {2, -1}, {0, 1}, {4, -1}} {
		c.apply(func() { c.items.table.Select(widget.TableCellID{Row: step.rest}) })
		c.Settle() // the detail, the document's rest and the words ahead
		waitFrame(t, frames, fmt.Sprintf("resting on row %d", step.rest))
		var ahead []string
		c.apply(func() {
			if !a.box.Visible() {
				t.Fatalf("resting on row %d: the rows beside it are not drawn", step.rest)
			}
			d := fyne.CurrentApp().Driver()
			if x := d.AbsolutePositionForObject(a.box).X + a.box.Size().Width; x > 0 {
				t.Fatalf("the words ahead reach x=%v: in sight", x)
			}
			if w := a.box.Size().Width; w != c.panel.title.Size().Width || w <= 0 {
				t.Fatalf("the words ahead are %v wide, the panel's %v", w, c.panel.title.Size().Width)
			}
			ahead = paintedTexts(a.box)
			c.win.Canvas().Capture() // a frame: Fyne paints them
		})
		c.Settle()
		if visible(c, a.box) {
			t.Fatalf("resting on row %d: the words ahead are still drawn after a frame", step.rest)
		}
		var now []string
		c.apply(func() {
			c.items.move(step.move) // the key's frame: the row's words
			now = append(wordsTexts(&c.panel.itemWords), paintedTexts(c.panel.layers)...)
		})
		if len(now) < 4 {
			t.Fatalf("row %d: the panel draws %q", step.rest+step.move, now)
		}
		for _, s := range now {
			found := false
			for _, h := range ahead {
				found = found || h == s
			}
			if !found {
				t.Errorf("from row %d to %d: the panel draws %s, not drawn ahead (ahead: %q)", step.rest, step.rest+step.move, s, ahead)
			}
		}
		c.Settle()
	}
	// She moves before Fyne painted them: the frame that names the item
	// does not draw them either.
	c.apply(func() { c.items.table.Select(widget.TableCellID{Row: 1}) })
	c.Settle()
	waitFrame(t, frames, "resting on row 1")
	if !visible(c, a.box) {
		t.Fatal("resting on row 1: the rows beside it are not drawn")
	}
	c.apply(func() {
		c.items.move(1)
		// Checked in the key's own update: the next item's rest may draw
		// them again once it is over.
		if a.box.Visible() {
			t.Error("the words ahead are drawn in the frame of her key")
		}
	})
}

// askedFrames reports each frame the words ahead ask Fyne for.
func askedFrames(c *Console) chan struct{} {
	frames := make(chan struct{}, 64)
	c.apply(func() {
		ask := c.panel.ahead.frame
		c.panel.ahead.frame = func(o fyne.CanvasObject) {
			frames <- struct{}{}
			ask(o)
		}
	})
	return frames
}

// waitFrame waits for the words ahead to ask for a frame.
func waitFrame(t *testing.T, frames chan struct{}, when string) {
	t.Helper()
	select {
	case <-frames:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: no frame was asked for the words ahead", when)
	}
}

func visible(c *Console, o fyne.CanvasObject) (v bool) {
	c.apply(func() { v = o.Visible() })
	return v
}

// An item she passes before resting on it (↓ held) draws no words ahead:
// its rest ends with the document's fetch, which the next item cancels.
// Only the item she stops on draws them, once.
func TestAnItemPassedWithoutRestingDrawsNoWordsAhead(t *testing.T) {
	c := docConsole(t, newFakeDocs(), errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "UNSUPPORTED_MEDIA_TYPE"),
		errorItem("itm_3", "DECODE_FAILED"), errorItem("itm_4", "DECODE_FAILED"))
	frames, a := askedFrames(c), c.panel.ahead
	c.apply(func() {
		c.items.table.Select(widget.TableCellID{Row: 0})
		c.items.move(1)
		c.items.move(1)
	})
	c.Settle()
	if n := len(frames); n != 1 {
		t.Fatalf("%d frames asked for the words ahead, want 1: for the item she stopped on", n)
	}
	var ahead []string
	c.apply(func() {
		if c.panel.itemID != "itm_3" {
			t.Fatalf("the panel shows %q", c.panel.itemID)
		}
		ahead = wordsTexts(&a.rows[0])
		ahead = append(ahead, wordsTexts(&a.rows[1])...)
	})
	for _, want := range []string{"itm_2", "itm_4"} {
		found := false
		for _, s := range ahead {
			found = found || strings.Contains(s, want)
		}
		if !found {
			t.Errorf("the words ahead of itm_3 do not name its neighbour %s: %q", want, ahead)
		}
	}
}

// The item the window opens on rests without its document (nothing is
// fetched until she moves or presses v), but the words of the rows beside
// it are made ready all the same: her first ↓ finds them drawn.
func TestTheFirstItemsNeighboursAreDrawnAheadWithoutItsDocument(t *testing.T) {
	docs := newFakeDocs()
	c := newTestConsoleWith(t, &fakeWorkflow{items: []review.ItemView{
		errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "UNSUPPORTED_MEDIA_TYPE"), errorItem("itm_3", "DECODE_FAILED"),
	}}, Options{Documents: docs})
	c.Settle()
	var ahead []string
	c.apply(func() {
		if c.panel.itemID != "itm_1" || c.panel.preview.state != "waiting" {
			t.Fatalf("the window opened on %q, its document %q", c.panel.itemID, c.panel.preview.state)
		}
		ahead = wordsTexts(&c.panel.ahead.rows[1])
	})
	docs.mu.Lock()
	fetched := docs.fetches
	docs.mu.Unlock()
	if fetched != 0 {
		t.Fatalf("%d documents fetched before she moved", fetched)
	}
	found := false
	for _, s := range ahead {
		found = found || strings.Contains(s, "itm_2")
	}
	if !found || !visible(c, c.panel.ahead.box) {
		t.Fatalf("the row below the first item is not drawn ahead: %q", ahead)
	}
}
