package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/review"
)

// spaceRows: the band, status and kind words at their longest, and three
// files whose names differ only at the end.
func spaceRows() []review.ItemView {
	rows := triageRows()
	for _, end := range []string{"1.jpg", "2.jpg", "3.jpg"} {
		v := errorItem("back"+end[:1], "DECODE_FAILED")
		v.FileName = "id-card-back-of-the-customer-scan-" + end
		rows = append(rows, v)
	}
	return rows
}

// cellWhole is a cell's whole text: what its tooltip shows when the cell
// cuts it.
func (c *Console) cellWhole(row, col int) string {
	l := newTipLabel("")
	c.items.updateCell(widget.TableCellID{Row: row, Col: col}, l)
	if l.hint != "" {
		return l.hint
	}
	return l.Text
}

func resizeTo(c *Console, w, h float32) {
	c.apply(func() { c.win.Resize(fyne.NewSize(w, h)) })
	c.Settle()
}

// At 1920 the columns use the space: no word is cut while the file name
// has room to give; at 1280 with the panel open no status or band is cut;
// three long file names that differ at their end can be told apart.
func TestTheColumnsUseTheWidthAndNoStatusOrBandIsCut(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{items: spaceRows()})
	for _, size := range []fyne.Size{{Width: 1920, Height: 1080}, {Width: 1280, Height: 800}} {
		resizeTo(c, size.Width, size.Height)
		if !c.panel.content.Visible() {
			t.Fatalf("%v: the panel is hidden", size)
		}
		for col, k := range c.items.cols {
			if k.title == "File" || (size.Width < 1900 && k.title != "Status" && k.title != "Score" && k.title != "Band") {
				continue
			}
			for r := range c.items.rows {
				whole(t, c, r, col)
			}
		}
		names := map[string]bool{}
		for r, v := range c.items.rows {
			if strings.HasPrefix(v.FileName, "id-card-back") {
				names[c.cell(r, 0).Text] = true
			}
		}
		if len(names) != 3 {
			t.Fatalf("%v: the three id-card-back files read alike: %v", size, names)
		}
	}
}

// At 800×600 the panel hides itself, and the window says so; wider
// again, it comes back. A panel hidden with p stays hidden.
func TestANarrowWindowHidesThePanelAndSaysSo(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{items: spaceRows()})
	resizeTo(c, 800, 600)
	if c.panel.content.Visible() || !strings.Contains(c.strip.pages.Text, "panel is hidden") {
		t.Fatalf("at 800×600: panel visible %v, strip %q", c.panel.content.Visible(), c.strip.pages.Text)
	}
	for _, title := range []string{"Status", "Score"} {
		col := c.col(t, title)
		for r := range c.items.rows {
			whole(t, c, r, col)
		}
	}
	resizeTo(c, 1280, 800)
	if !c.panel.content.Visible() {
		t.Fatal("the panel did not come back at 1280")
	}
	c.apply(c.togglePanel) // p
	resizeTo(c, 800, 600)
	resizeTo(c, 1280, 800)
	if c.panel.content.Visible() {
		t.Fatal("a panel hidden with p came back by itself")
	}
}

// The panel shows the next item from its top.
func TestThePanelScrollsToItsTopWhenTheItemChanges(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{items: spaceRows()})
	n := len(c.items.rows)
	c.apply(func() { c.items.move(n - 2 - c.items.row) }) // one of two alike items
	c.Settle()
	c.apply(func() { c.panel.scroll.Refresh(); c.panel.scroll.ScrollToBottom() }) // the test driver lays out on request
	at := c.panel.scroll.Offset.Y
	if at == 0 {
		t.Fatal("the panel's content fits: nothing to scroll")
	}
	c.apply(func() { c.items.move(1) })
	c.Settle()
	c.apply(func() { c.panel.scroll.Refresh() })
	if c.panel.itemID != c.items.rows[n-1].ID || c.panel.scroll.Offset.Y != 0 {
		t.Fatalf("the next item (%s) is shown at offset %v (was %v)", c.panel.itemID, c.panel.scroll.Offset.Y, at)
	}
}

// A batch's scores are counted by band, in the band's word and colour: two
// critical scores are never "2 ✓". The counts explain themselves.
func TestTheBatchCountsSayTheBandNotATick(t *testing.T) {
	wf := twoBatches()
	wf.batches[0].Scored, wf.batches[0].Bands = 3, [4]int{1, 0, 0, 2}
	wf.batches[0].Errors, wf.batches[0].Retryable = 6, 4
	c := newTestConsole(t, wf)
	row := c.batches.list.CreateItem()
	c.batches.list.UpdateItem(0, row)
	box := row.(*fyne.Container)
	var words []string
	for _, seg := range box.Objects[1].(*widget.RichText).Segments {
		ts := seg.(*widget.TextSegment)
		words = append(words, ts.Text)
		if strings.Contains(ts.Text, "critical") && ts.Style.ColorName != theme.ColorNameError {
			t.Fatalf("critical in colour %q", ts.Style.ColorName)
		}
	}
	counts := box.Objects[2].(*tipLabel)
	all := strings.Join(words, "") + " " + counts.Text
	if !strings.Contains(all, "1 low · 2 critical") || strings.Contains(all, "✓") || !strings.Contains(counts.Text, "6 ✗ · 4 ↻") {
		t.Fatalf("counts %q", all)
	}
	if !strings.Contains(counts.hint, "✗ items not checked") {
		t.Fatalf("the counts have no explanation: %q", counts.hint)
	}
}

// No jargon in the window: the reviewer's name says where it comes from
// and how to change it, Preferences do not speak HTTP, and the panel's
// headline has no code.
func TestTheMainWindowSpeaksWords(t *testing.T) {
	c := newTestConsoleWith(t, &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}, Options{ReviewerSource: "REVIEWER_NAME"})
	c.apply(func() { c.showConnectivity(c.conn) })
	if r := c.strip.reviewer; !strings.Contains(r.Text, "ana (from REVIEWER_NAME)") || !strings.Contains(r.hint, "--reviewer") {
		t.Fatalf("strip: %q / %q", r.Text, r.hint)
	}
	if v := c.panel.verdict.Text; strings.Contains(v, "DECODE_FAILED") || !strings.Contains(v, "not checked") {
		t.Fatalf("headline %q", v)
	}
	if !strings.Contains(c.panel.explain.Text, "DECODE_FAILED") {
		t.Fatalf("the code is not said under the headline: %q", c.panel.explain.Text)
	}
	c.apply(func() { c.settings.show(c.win) })
	var texts []string
	for _, o := range test.LaidOutObjects(c.win.Canvas().Overlays().Top()) {
		switch x := o.(type) {
		case *canvas.Text:
			texts = append(texts, x.Text)
		case *widget.Label:
			texts = append(texts, x.Text)
		}
	}
	all := strings.Join(texts, "\n")
	if strings.Contains(all, "GET /v1/me") || !strings.Contains(all, "--reviewer") {
		t.Fatalf("preferences say:\n%s", all)
	}
}

// Three rows with the same file name are told apart by their ids, also in
// a narrow file column.
func TestRowsWithOneFileNameAreToldApart(t *testing.T) {
	var rows []review.ItemView
	for _, id := range []string{"itm_0048_03", "itm_0048_07", "itm_0048_09"} {
		v := errorItem(id, "INTERNAL_ERROR")
		v.FileName = "id-card-back.png"
		rows = append(rows, v)
	}
	c := newTestConsole(t, &fakeWorkflow{items: append(rows, spaceRows()...)})
	seen := map[string]bool{}
	for r := range 3 {
		seen[c.cell(r, 0).Text] = true
	}
	if len(seen) != 3 {
		t.Fatalf("the three id-card-back.png rows read %v", seen)
	}
}
