package ui

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// paintedTexts is every text Fyne would paint under o, as its painter keys
// the texture it keeps: words, size, style and colour.
func paintedTexts(o fyne.CanvasObject) []string {
	var out []string
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch v := o.(type) {
		case *canvas.Text:
			if v.Text != "" && v.Text != " " {
				out = append(out, fmt.Sprintf("%q %v %+v %v", v.Text, v.TextSize, v.TextStyle, v.Color))
			}
		case *fyne.Container:
			for _, k := range v.Objects {
				walk(k)
			}
		case fyne.Widget:
			for _, k := range test.WidgetRenderer(v).Objects() {
				walk(k)
			}
		}
	}
	walk(o)
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
	c := newTestConsole(t, &fakeWorkflow{items: []review.ItemView{
		errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "UNSUPPORTED_MEDIA_TYPE"), scored, held,
		errorItem("itm_5", "QUANTUM_FLUX_CAPACITOR"),
	}})
	a := c.panel.ahead
	if c.panelOff {
		t.Fatal("the panel is not open at 1280x800")
	}
	for _, step := range []struct {
		rest, move int
	}{{1, 1}, {2, 1}, {3, -1}, {2, -1}} {
		c.apply(func() { c.items.table.Select(widget.TableCellID{Row: step.rest}) })
		c.Settle() // the detail, then the rest, then the words ahead
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
		if c.apply(func() {}); a.box.Visible() {
			t.Fatalf("resting on row %d: the words ahead are still drawn after a frame", step.rest)
		}
		c.apply(func() { c.items.move(step.move) }) // the key's frame: the row's words
		var now []string
		c.apply(func() { now = append(wordsTexts(&c.panel.itemWords), paintedTexts(c.panel.layers)...) })
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
	if c.apply(func() {}); !a.box.Visible() {
		t.Fatal("resting on row 1: the rows beside it are not drawn")
	}
	c.apply(func() { c.items.move(1) })
	if c.apply(func() {}); a.box.Visible() {
		t.Fatal("the words ahead are drawn in the frame of her key")
	}
}
