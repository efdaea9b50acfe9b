package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// keyList is a list whose arrow keys open the batch above or below, and
// whose other keys are the window's.
type keyList struct {
	widget.List
	onKey  func(*fyne.KeyEvent) bool
	onRune func(rune)
}

func (l *keyList) TypedKey(ev *fyne.KeyEvent) {
	if l.onKey != nil && l.onKey(ev) {
		return
	}
	l.List.TypedKey(ev)
}

func (l *keyList) TypedRune(r rune) {
	if l.onRune != nil {
		l.onRune(r)
	}
}

// batchList is the list of batches on the left. The batch that is open is
// b.selected (an id, not a row); the list's highlight follows it, so that a
// click or Enter on any batch opens it.
type batchList struct {
	c        *Console
	search   *searchEntry // focus.go
	all      *keyCheck
	list     *keyList
	holder   *fyne.Container // holds list
	heights  []float32       // of the list's rows
	rows     []store.BatchSummary
	ages     map[string]review.Aged // oldest waiting item per batch (newitems.go)
	selected string
	// restored: selected is the batch the window was left on
	// (windowstate.go); the first read checks it is still listed.
	restored bool
	// opened is the open batch's row as last read, also while a search
	// hides it (the items' heading names it).
	opened store.BatchSummary
	// note says that a search matched nothing, or that it hides the open
	// batch.
	note    *textLabel
	gen     int
	content fyne.CanvasObject
}

func newBatchList(c *Console) *batchList {
	b := &batchList{c: c, search: newSearchEntry(c)}
	b.search.PlaceHolder = "Search batches, items, files (Ctrl+F)"
	b.search.OnChanged = func(string) { b.refresh() }
	b.search.OnSubmitted = func(string) { b.onSubmitted() }
	b.all = newFilterCheck(c, "All batches", b.onAll)
	b.list = b.newList()
	b.holder = container.NewStack(b.list)
	b.note = wrapped("")
	b.note.Importance = widget.WarningImportance
	b.note.Hide()
	b.content = drawnBorder(container.NewVBox(b.search, b.note, b.all), nil, nil, b.holder) // focus.go: Tab's order
	return b
}

// onSubmitted (Enter in the search) opens the first match, at the item
// that matched, and gives the focus to the items.
func (b *batchList) onSubmitted() {
	if len(b.rows) == 0 {
		return // the note says there is no match
	}
	b.open(0)
	b.c.focusItems()
}

// showNote says what the search found that the list cannot show: nothing,
// or not the open batch.
func (b *batchList) showNote() {
	text := ""
	search := strings.TrimSpace(b.search.Text)
	switch {
	case search == "":
	case len(b.rows) == 0:
		text = "No match for “" + shown(search) + "” in batch ids, customers, item ids or file names."
	case !b.all.Checked && b.selected != "" && b.index(b.selected) < 0:
		text = "Open: " + batchTitle(b.opened) + ", not in this search (Enter opens the first match)."
	}
	setOrHide(b.note, text)
}

// batchTitle names a batch: its customer and its date.
func batchTitle(r store.BatchSummary) string {
	if r.ID == "" {
		return "a batch"
	}
	return fmt.Sprintf("%s · %s", shown(r.CustomerRef), dayClock(r.CreatedAt))
}

// newList makes the list widget. A refresh that changes the rows' heights
// makes a new one and sets them before it is drawn: List.SetItemHeight on
// a list already drawn refreshes the whole list and builds a new template
// row each time, which for 500 batches was most of the window's garbage
// at start. A refresh with the same heights keeps the list shown.
func (b *batchList) newList() *keyList {
	l := &keyList{}
	l.Length = func() int { return len(b.rows) }
	l.CreateItem = func() fyne.CanvasObject {
		title := newTipLabel("CUST-0000  Jan 00 00:00") // whole on hover when cut
		title.TextStyle.Bold = true
		match := newTipLabel("match: passport-front.jpg")
		match.Importance = widget.HighImportance
		counts := newTipLabel("0 ✗ · 0 ↻")
		counts.hint = countsLegend // shortcuts.go; the sheet says it too
		return container.NewVBox(title, richText(), counts, newLabel("0 awaiting file"), newLabel("oldest 0 d"), match)
	}
	l.UpdateItem = func(id widget.ListItemID, o fyne.CanvasObject) {
		if id >= len(b.rows) {
			return
		}
		r := b.rows[id]
		box := o.(*fyne.Container)
		box.Objects[0].(*tipLabel).SetText(fmt.Sprintf("%s  %s", shown(r.CustomerRef), dayClock(r.CreatedAt)))
		first, second := countsText(r)
		second, third := withAge(second, b.ages[r.ID]) // ageing.go
		bands := box.Objects[1].(*widget.RichText)
		bands.Segments = safeSegments(bandSegments(r))
		bands.Refresh()
		box.Objects[2].(*tipLabel).SetText(first)
		setOrHide(box.Objects[3].(*textLabel), second)
		setOrHide(box.Objects[4].(*textLabel), third)
		match := box.Objects[5].(*tipLabel)
		match.SetText(matchText(r))
		if match.Text == "" {
			match.Hide()
		} else {
			match.Show()
		}
	}
	l.OnSelected = b.onSelected
	l.onKey = func(ev *fyne.KeyEvent) bool {
		switch ev.Name {
		case fyne.KeyUp:
			b.move(-1)
		case fyne.KeyDown:
			b.move(1)
		case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
			if i := b.index(b.selected); i >= 0 {
				b.open(i)
			}
		default:
			b.c.onKey(ev)
		}
		return true
	}
	l.onRune = func(r rune) { b.c.onRune(r) }
	l.ExtendBaseWidget(l)
	return l
}

// bandSegments are a batch's scored items by band, each in its band's word
// and colour ("2 low · 1 critical"): a critical or reject score is never
// counted as good.
func bandSegments(r store.BatchSummary) []widget.RichTextSegment {
	colours := []fyne.ThemeColorName{theme.ColorNameSuccess, theme.ColorNameForeground, theme.ColorNameWarning, theme.ColorNameError}
	var segs []widget.RichTextSegment
	for i, n := range r.Bands {
		if n == 0 {
			continue
		}
		if len(segs) > 0 {
			segs = append(segs, &widget.TextSegment{Text: " · ", Style: widget.RichTextStyleInline})
		}
		word, _ := bandLook([]policy.Band{policy.BandLow, policy.BandMedium, policy.BandHigh, policy.BandCritical}[i])
		st := widget.RichTextStyleInline
		st.ColorName = colours[i]
		segs = append(segs, &widget.TextSegment{Text: fmt.Sprintf("%d %s", n, word), Style: st})
	}
	if len(segs) == 0 {
		segs = append(segs, &widget.TextSegment{Text: "no scores", Style: widget.RichTextStyleInline})
	}
	return segs
}

// countsText is a batch's other counts on two short lines (the second may
// be empty), so that they fit the narrow list whole.
func countsText(r store.BatchSummary) (string, string) {
	parts := []string{fmt.Sprintf("%d ✗", r.Errors)}
	if r.Retryable > 0 {
		parts = append(parts, fmt.Sprintf("%d ↻", r.Retryable))
	}
	var more []string
	if r.AwaitingFile > 0 {
		more = append(more, fmt.Sprintf("%d awaiting file", r.AwaitingFile))
	}
	if r.OpenActions > 0 {
		more = append(more, fmt.Sprintf("%d open", r.OpenActions))
	}
	return strings.Join(parts, " · "), strings.Join(more, " · ")
}

// matchText is the item a search found in a batch.
func matchText(r store.BatchSummary) string {
	if r.MatchItem == "" {
		return ""
	}
	return "match: " + shown(r.MatchFile) + " · " + shown(r.MatchItem)
}

// heightsOf is the height of each row: its lines.
func (b *batchList) heightsOf(rows []store.BatchSummary) []float32 {
	line := newLabel("X").MinSize().Height
	pad := theme.Padding()
	hs := make([]float32, len(rows))
	for i, r := range rows {
		h := 3*line + 2*pad // the title, the bands, the counts
		_, second := countsText(r)
		second, third := withAge(second, b.ages[r.ID])
		for _, more := range []string{second, third, matchText(r)} {
			if more != "" {
				h += line + pad
			}
		}
		hs[i] = h
	}
	return hs
}

func (b *batchList) refresh() {
	search := b.search.Text
	b.gen++
	gen := b.gen
	b.c.background(func(ctx context.Context) func() {
		rows, err := b.c.wf.Listing.Batches(ctx, search, batchLimit)
		ages := b.c.batchAges(ctx, rows)
		return func() {
			if gen != b.gen {
				return
			}
			if err != nil {
				b.c.strip.say("cache: " + sentence(err))
				return
			}
			b.rows, b.ages = rows, ages
			if b.restored {
				b.restored = false
				if b.index(b.selected) < 0 && !b.all.Checked {
					b.selected = "" // gone from the list: the newest, as at a first start
				}
			}
			if b.selected == "" && len(rows) > 0 {
				b.selected = rows[0].ID
				b.c.items.refresh()
			}
			if i := b.index(b.selected); i >= 0 {
				b.opened = rows[i]
				b.c.items.showHeading()
			}
			b.replaceList()
			b.showNote()
		}
	})
}

// replaceList puts a new list, with the heights of the rows read, in
// place of the one shown, with the open batch highlighted, at the same
// scroll offset and with the focus if the old one had it.
func (b *batchList) replaceList() {
	hs := b.heightsOf(b.rows)
	if slices.Equal(hs, b.heights) {
		// The same heights (a sync that changed no row's lines): the
		// list shown takes the new rows with one refresh.
		b.list.Refresh()
		b.highlight()
		return
	}
	old, l := b.list, b.newList()
	b.heights = hs
	for i, h := range hs {
		l.SetItemHeight(i, h) // not drawn yet: no refresh per row
	}
	l.MinSize() // its renderer, to scroll it
	l.Resize(old.Size())
	b.list = l
	b.highlight() // may scroll to the open batch: the old offset wins
	l.ScrollToOffset(old.GetScrollOffset())
	b.holder.Objects = []fyne.CanvasObject{l}
	b.holder.Refresh()
	if cv := fyne.CurrentApp().Driver().CanvasForObject(b.holder); cv != nil && cv.Focused() == old {
		cv.Focus(l)
	}
}

// highlight makes the list's selection show the open batch, and nothing
// when all batches are shown or the open batch is not in the list (so a
// click on any row is a change, and opens that batch).
func (b *batchList) highlight() {
	i := b.index(b.selected)
	if b.all.Checked || i < 0 {
		b.list.UnselectAll()
		return
	}
	b.list.Select(i) // onSelected sees the open batch: nothing reloads
}

func (b *batchList) index(id string) int {
	for i, r := range b.rows {
		if r.ID == id {
			return i
		}
	}
	return -1
}

func (b *batchList) onSelected(id widget.ListItemID) {
	if !b.c.applyingResult { // a refresh keeping the open batch is not her doing
		b.c.sawInput() // claims_away.go
	}
	b.open(id)
}

// open shows the batch at row id.
func (b *batchList) open(id int) {
	if id < 0 || id >= len(b.rows) {
		return
	}
	changed := b.selected != b.rows[id].ID || b.all.Checked
	b.selected, b.opened = b.rows[id].ID, b.rows[id]
	if m := b.rows[id].MatchItem; m != "" && !(!changed && b.c.items.selectItem(m)) {
		b.c.items.wantID = m // the item the search found
	}
	if b.all.Checked {
		b.all.Checked = false // without its callback: one refresh below
		b.all.Refresh()
	}
	if b.index(b.selected) >= 0 {
		b.list.Select(id)
	}
	if changed {
		b.c.items.refresh()
	}
	b.showNote()
}

func (b *batchList) onAll(bool) {
	b.highlight()
	b.showNote()
	b.c.items.refresh()
}

// move opens the batch above or below the open one.
func (b *batchList) move(delta int) {
	if len(b.rows) == 0 {
		return
	}
	i := b.index(b.selected)
	if i < 0 {
		i = 0
	} else {
		i = min(max(i+delta, 0), len(b.rows)-1)
	}
	b.open(i)
	b.list.ScrollTo(i)
}

// batchID is the batch the items are shown for ("" for all).
func (b *batchList) batchID() string {
	if b.all.Checked {
		return ""
	}
	return b.selected
}
