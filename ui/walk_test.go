package ui

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/review"
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
