package ui

import (
	"context"
	"reflect"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// column is one column of the items table.
type column struct {
	title string
	sort  string // store sort key
	width float32
	// drop: columns with a higher number go first when the table is narrow
	// (0: never dropped).
	drop int
	text func(review.ItemView) (string, widget.Importance)
}

// fileMin is the width the file column asks for; it takes the spare width.
// Before a column with a drop of keepDrop or less goes (the recommendation,
// the action), it gives up width down to fileFloor.
const (
	fileMin   = 120
	fileFloor = 80
	keepDrop  = 2
)

// allColumns are the items table's columns, in order. Band and Age
// (ageing.go) go first when the table is narrow, their words moving into
// the score and status cells (merges).
var allColumns = []column{
	{"File", "file", fileMin, 0, func(v review.ItemView) (string, widget.Importance) { return shown(v.FileName), widget.MediumImportance }},
	{"Customer", "", 96, 0, func(v review.ItemView) (string, widget.Importance) {
		return shown(v.CustomerRef), widget.MediumImportance
	}},
	{"Kind", "kind", 48, 7, func(v review.ItemView) (string, widget.Importance) {
		if v.Kind == policy.KindSelfie {
			return "selfie", widget.MediumImportance
		}
		return "ID", widget.MediumImportance
	}},
	{"Status", "status", 112, 0, statusCell},
	{"Age", "since", 80, 5, ageCell},
	{"Score", "score", 46, 0, func(v review.ItemView) (string, widget.Importance) { return scoreText(v.Item), widget.MediumImportance }},
	{"Band", "score", 60, 4, bandCell},
	{"Rec.", "recommendation", 66, 2, func(v review.ItemView) (string, widget.Importance) {
		return recommendationText(v.Item), widget.MediumImportance
	}},
	{"Code", "code", 190, 0, func(v review.ItemView) (string, widget.Importance) {
		if v.ErrorCode == "" {
			return "—", widget.MediumImportance
		}
		return shown(string(v.ErrorCode)), widget.MediumImportance
	}},
	{"Retry", "", 44, 6, func(v review.ItemView) (string, widget.Importance) {
		if v.Retryable {
			return "yes", widget.MediumImportance
		}
		return "—", widget.MediumImportance
	}},
	{"Action", "", 80, 1, actionCell},
}

func statusCell(v review.ItemView) (string, widget.Importance) { return statusLook(v.Item) }

// actionCell is her action's state; on an item another reviewer holds,
// who holds it ("held: Ben", claims.go), which is why she has none; with
// no open action, the item's current decision (decide.go).
func actionCell(v review.ItemView) (string, widget.Importance) {
	switch {
	case v.Action != nil && v.Action.State == policy.ActionUnknown:
		return actionText(v), widget.WarningImportance
	case v.Action == nil && v.Holder != nil:
		return holderCell(*v.Holder), widget.WarningImportance
	case v.OpenAction() == "" && v.CurrentDecision() != nil:
		return rowDecision(v.Item, v.Me)
	}
	return actionText(v), widget.MediumImportance
}

// heldFilter lists the choices of who holds the items: anyone, nobody,
// the reviewer, another reviewer (store.HeldFilter).
var heldFilter = []struct {
	label string
	held  store.HeldFilter
}{
	{"Held by anyone", ""},
	{"Free", store.HeldFree},
	{"Mine", store.HeldMine},
	{"Others'", store.HeldOthers},
}

// statusFilter lists the status filter's choices in the rows' words.
var statusFilter = []struct {
	label  string
	status policy.Status
}{
	{"All statuses", ""},
	{statusWord(policy.StatusScored), policy.StatusScored},
	{statusWord(policy.StatusError), policy.StatusError},
	{statusWord(policy.StatusInvalid), policy.StatusInvalid},
	{statusWord(policy.StatusPending), policy.StatusPending},
	{statusWord(policy.StatusAwaitingFile), policy.StatusAwaitingFile},
}

// keyTable is a table whose arrow keys move the selection (and so the
// panel), not a focus box, and whose Enter opens the selected item.
type keyTable struct {
	widget.Table
	onKey    func(*fyne.KeyEvent) bool
	onRune   func(rune)
	onResize func(fyne.Size)
	// held, while the columns' widths are set one by one: each
	// SetColumnWidth refreshes the whole table (its template cells, every
	// visible cell); one refresh follows them all.
	held bool
}

// CreateRenderer wraps the table's renderer so that a refresh can wait.
func (t *keyTable) CreateRenderer() fyne.WidgetRenderer {
	return &heldRenderer{WidgetRenderer: t.Table.CreateRenderer(), held: &t.held}
}

type heldRenderer struct {
	fyne.WidgetRenderer
	held *bool
}

func (r *heldRenderer) Refresh() {
	if !*r.held {
		r.WidgetRenderer.Refresh()
	}
}

// setColumnWidths sets every column's width, with one refresh.
func (t *keyTable) setColumnWidths(widths []float32) {
	t.held = true
	defer func() {
		t.held = false
		t.Refresh()
	}()
	for i, w := range widths {
		t.SetColumnWidth(i, w)
	}
}

func (t *keyTable) TypedKey(ev *fyne.KeyEvent) {
	if t.onKey != nil && t.onKey(ev) {
		return
	}
	t.Table.TypedKey(ev)
}

// Tapped selects the cell and takes the focus. (Table.Tapped looks its
// canvas up by the embedded *Table, which is not on the canvas, so on its
// own it never focuses an extended table and arrows went nowhere.)
func (t *keyTable) Tapped(ev *fyne.PointEvent) {
	tappedTable = t // select.go: a click reads the modifiers held
	t.Table.Tapped(ev)
	tappedTable = nil
	if c := fyne.CurrentApp().Driver().CanvasForObject(t); c != nil && c.Focused() != t {
		c.Focus(t)
	}
}

func (t *keyTable) TypedRune(r rune) {
	if t.onRune != nil {
		t.onRune(r)
	}
}

func (t *keyTable) Resize(s fyne.Size) {
	t.Table.Resize(s)
	if t.onResize != nil {
		t.onResize(s)
	}
}

// itemTable is the sortable items table in the middle.
type itemTable struct {
	c       *Console
	hold    bool // while a view sets several filters at once: one refresh at the end
	table   *keyTable
	status  *keySelect // focus.go
	code    *keySelect
	needs   *keyCheck
	held    *keySelect // who holds the items: anyone, free, mine, others' (heldFilter)
	count   *textLabel
	heading *textLabel    // which batch the items belong to
	offline *offlineCheck // "Available offline" on it (kept.go)
	rows    []review.ItemView
	cols    []column
	alts    map[string]string // a column's title → the sort key of the column merged into it (ageing.go)
	width   float32
	widths  map[string]float32 // measured text widths (fit)
	twice   map[string]bool    // file names more than one row has (fileCell)
	sortBy  string
	desc    bool
	row     int // selected row, -1 none
	gen     int
	wantID  string // claims.go: select this item after the next refresh (Next)
	content fyne.CanvasObject
	// advanceFrom: after the action on this item, the next refresh moves
	// the selection to the next item that needs the reviewer.
	advanceFrom string
	// The rows are read from the cache a page at a time as the table
	// scrolls (pageRows each): shown is the filter of the loaded rows,
	// more says the last page was full, loading that one is on its way.
	// At most keepPages pages are held: base is the listing's number of
	// rows[0] (the pages before it were dropped, and are read again when
	// she scrolls back); the table's rows are those held.
	shown         store.ItemFilter
	more, loading bool
	base          int
}

// pageRows is how many rows the table reads from the cache at a time.
const pageRows = 500

// keepPages is how many pages of rows the table holds around the view:
// the window's memory is flat in the rows she scrolls past.
const keepPages = 3

func newItemTable(c *Console) *itemTable {
	t := &itemTable{c: c, row: -1, count: newLabel(""), heading: newLabel(""), cols: allColumns}
	t.heading.TextStyle.Bold = true
	t.heading.Truncation = fyne.TextTruncateEllipsis
	labels := make([]string, len(statusFilter))
	for i, s := range statusFilter {
		labels[i] = s.label
	}
	t.status = newKeySelect(c, labels, func(string) { t.refresh() })
	codes := []string{"All codes"}
	for _, code := range policy.ItemCodes() {
		codes = append(codes, string(code))
	}
	codes = append(codes, string(policy.CodeInvalidResponse))
	t.code = newKeySelect(c, codes, func(string) { t.refresh() })
	t.needs = newFilterCheck(c, "Needs my action", func(bool) { t.refresh() })
	held := make([]string, len(heldFilter))
	for i, h := range heldFilter {
		held[i] = h.label
	}
	t.held = newKeySelect(c, held, func(string) { t.refresh() })

	t.table = &keyTable{}
	t.table.Length = func() (int, int) { return len(t.rows), len(t.cols) }
	t.table.CreateCell = func() fyne.CanvasObject {
		return newTipLabel("passport-front.jpg")
	}
	t.table.UpdateCell = t.updateCell
	t.table.ShowHeaderRow = true
	t.table.CreateHeader = func() fyne.CanvasObject { return newHeaderButton() } // focus.go: not on Tab's way
	t.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		b := o.(*headerButton)
		if id.Col < 0 || id.Col >= len(t.cols) {
			b.SetText("")
			return
		}
		col := t.cols[id.Col]
		b.OnTapped = func() { t.onHeader(col) }
		// The table updates every header whenever it scrolls or a row is
		// selected: an unchanged one is not drawn again.
		if text := t.headerText(col); b.Text != text || b.Importance != widget.LowImportance {
			b.Importance = widget.LowImportance
			b.SetText(text)
		}
	}
	t.table.OnSelected = t.onSelected
	t.table.onKey = t.onKey
	t.table.onRune = func(r rune) { c.onRune(r) }
	// The columns are laid out when the table has a width (its first
	// size, as the window is laid out), not before: a guess at a width
	// would measure every heading once more while the window is built.
	t.table.onResize = func(s fyne.Size) {
		if s.Width != t.width {
			t.width = s.Width
			t.layoutColumns()
		}
	}
	t.table.ExtendBaseWidget(t.table)
	filters := drawnBorder(nil, nil, t.needs, container.NewGridWithColumns(2, t.status, t.code)) // focus.go: Tab's order
	t.offline = newOfflineCheck(c)
	// Who holds the items is chosen on the heading's line: a third choice
	// on the filters' line would make the window wider than 800 pixels.
	head := container.NewBorder(nil, nil, nil, container.NewHBox(t.held, t.offline.check), t.heading)
	t.content = drawnBorder(container.NewVBox(head, filters), t.count, nil, t.table)
	return t
}

// showHeading names the batch the items belong to (its customer and
// date), or says they come from every batch.
func (t *itemTable) showHeading() {
	b := t.c.batches
	if b == nil {
		return
	}
	text := ""
	switch {
	case b.batchID() == "":
		text = "All batches"
	case b.opened.ID == b.selected:
		text = "Batch " + batchTitle(b.opened) + " · " + plural(b.opened.Items, "item")
	default:
		text = "Batch " + shown(b.selected)
	}
	if name := t.c.viewInForce(); name != "" { // views.go
		text += " · view: " + shown(name)
	}
	t.heading.SetText(text)
	t.offline.show(b.batchID())
}

// layoutColumns picks the columns that fit the table's width, dropping the
// least needed first, and gives the file name the spare width. The
// customer column shows only across all batches.
func (t *itemTable) layoutColumns() {
	all := t.c.batches != nil && t.c.batches.batchID() == ""
	var cols []column
	t.alts = map[string]string{}
	for _, col := range allColumns {
		if col.title == "Customer" && !all {
			continue
		}
		cols = append(cols, col)
	}
	width := t.width
	if width <= 0 {
		width = 900
	}
	width -= 14                // the vertical scroll bar
	sep := theme.Padding() + 1 // between columns
	sum := func(cs []column) (s float32) {
		for _, c := range cs {
			s += c.width + sep
		}
		return s
	}
	for {
		// Drop columns while they do not fit; and while the file name
		// would be narrower than another column, drop the least needed
		// ones that hold no other column's words (drop > keepDrop).
		over := sum(cols) > width
		if !over && cols[0].width+width-sum(cols) >= widest(cols[1:]) {
			break
		}
		worst, at := 0, -1
		for i, c := range cols {
			if _, merges := merges[c.title]; c.drop > worst && (over || (c.drop > keepDrop && !merges)) {
				worst, at = c.drop, i
			}
		}
		if at < 0 {
			break
		}
		if worst <= keepDrop && cols[0].width > fileFloor {
			// Before a column worth keeping goes, the file name gives up
			// its width (its tooltip shows it whole).
			cols[0].width -= min(sum(cols)-width, cols[0].width-fileFloor)
			continue
		}
		gone := cols[at]
		cols = append(cols[:at:at], cols[at+1:]...)
		t.mergeInto(cols, gone) // ageing.go
	}
	if spare := width - sum(cols); spare >= 0 {
		// Columns whose words would be cut grow first, from the spare
		// width and then from the file name, which stays the widest
		// column (a long name shows its end: fileCell); the file name
		// takes the rest.
		file := cols[0].width + spare
		for i := 1; i < len(cols); i++ {
			need := t.fit(cols[i]) - cols[i].width
			if need <= 0 {
				continue
			}
			was := cols[i].width
			cols[i].width += need
			floor := max(fileMin, widest(cols[1:]))
			grow := max(min(need, file-floor), 0)
			cols[i].width = was + grow
			file -= grow
		}
		cols[0].width = file
	} else if total := sum(cols); spare < 0 && total > 0 {
		// Narrower still: every column gives up the same share (a cut
		// text shows whole in its tooltip).
		f := width / total
		for i := range cols {
			cols[i].width = float32(int(cols[i].width*f)) - sep
		}
	}
	t.cols = cols
	widths := make([]float32, len(cols))
	for i, col := range cols {
		widths[i] = col.width
	}
	t.table.setColumnWidths(widths)
}

// fit is the width a column needs to show the words of the rows read and
// its header whole; never less than its own width.
func (t *itemTable) fit(col column) float32 {
	pad := 2*theme.InnerPadding() + 2
	head := col.title
	if col.sort != "" {
		head += " ▼" // room for the sort mark
	}
	need := max(col.width, t.measure(head)+2*pad)
	seen := map[string]bool{}
	for _, r := range t.rows {
		text, _ := col.text(r)
		if seen[text] {
			continue
		}
		seen[text] = true
		need = max(need, t.measure(text)+pad)
		if len(seen) > 200 {
			break // file names and customers are many; the rest few
		}
	}
	return min(need, 320)
}

// measure is the width of a text in the table's cells (cached).
func (t *itemTable) measure(text string) float32 {
	if w, ok := t.widths[text]; ok {
		return w
	}
	if t.widths == nil || len(t.widths) > 5000 {
		t.widths = map[string]float32{}
	}
	w := fyne.MeasureText(text, theme.TextSize(), fyne.TextStyle{}).Width
	t.widths[text] = w
	return w
}

// countNames notes the file names that more than one row has.
func (t *itemTable) countNames() {
	seen := make(map[string]bool, len(t.rows))
	t.twice = map[string]bool{}
	for _, r := range t.rows {
		if seen[r.FileName] {
			t.twice[r.FileName] = true
		}
		seen[r.FileName] = true
	}
}

// fileCell cuts a file name too long for its cell in the middle, so that
// its end (what tells "id-card-back-1.jpg" from "id-card-back-2.jpg") shows;
// the tooltip gives it whole.
func (t *itemTable) fileCell(text string, width float32) string {
	pad := 2*theme.InnerPadding() + 2
	if width <= 0 || t.measure(text)+pad <= width {
		return text
	}
	r := []rune(text)
	lo, hi := 0, len(r) // the most runes kept that fit
	for lo < hi {
		k := (lo + hi + 1) / 2
		if t.measure(middle(r, k))+pad <= width {
			lo = k
		} else {
			hi = k - 1
		}
	}
	return middle(r, lo)
}

// middle keeps k runes of r: the start and, a little longer, the end.
func middle(r []rune, k int) string {
	if k >= len(r) {
		return string(r)
	}
	tail := (k + 1) * 3 / 5
	return string(r[:k-tail]) + "…" + string(r[len(r)-tail:])
}

// widest is the width of the widest column.
func widest(cols []column) (w float32) {
	for _, c := range cols {
		w = max(w, c.width)
	}
	return w
}

func (t *itemTable) sortMark(key string) string {
	if key == "" || key != t.sortBy {
		return ""
	}
	if t.desc {
		return " ▼"
	}
	return " ▲"
}

func (t *itemTable) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*tipLabel)
	if id.Row < 0 || id.Row >= len(t.rows) || id.Col < 0 || id.Col >= len(t.cols) {
		l.SetText("")
		return
	}
	if id.Row >= len(t.rows)-pageRows/5 {
		t.loadMore() // the reviewer scrolls towards the end of what is read
	} else if id.Row < pageRows/5 && t.base > 0 {
		t.loadBefore() // or back towards pages dropped
	}
	col := t.cols[id.Col]
	v := t.rows[id.Row]
	text, imp := col.text(v)
	if col.title == "File" && t.twice[v.FileName] {
		text += " · " + shown(v.ID) // the same name twice: the id tells them apart
	}
	text = t.c.selectionMark(id.Row, id.Col, text) // select.go
	l.hint = ""
	if col.title == "Action" || (col.title == "Status" && !t.hasColumn("Action")) {
		l.hint = holderHint(v) // claims.go: "Ben is on this until 10:19"
		if l.hint == "" && v.OpenAction() == "" {
			l.hint = rowDecisionHint(v.Item) // decide.go: "reject by ana · awaiting a second reviewer"
		}
	}
	if col.title == "File" {
		if cut := t.fileCell(text, col.width); cut != text {
			l.hint, text = text, cut
		}
	}
	if l.Text == drawn(text) && l.Importance == imp {
		// The table updates every visible cell on each selection and
		// scroll (↓ did three times): a cell whose words did not change
		// is not refreshed, which would redraw it and its text.
		return
	}
	l.Importance = imp
	l.SetText(text)
}

// filter is what the filters select.
func (t *itemTable) filter() store.ItemFilter {
	f := store.ItemFilter{BatchID: t.c.batches.batchID(), NeedsAction: t.needs.Checked, SortBy: t.sortBy, Desc: t.desc}
	if i := t.held.SelectedIndex(); i > 0 {
		f.Held, f.Me = heldFilter[i].held, t.c.wf.Team.Reviewer() // claims.go: who holds it now
	}
	f.TriageFilter = t.c.view.extra // views.go: snoozed, overdue, the news
	if i := t.status.SelectedIndex(); i > 0 {
		f.Status = statusFilter[i].status
	}
	if t.code.SelectedIndex() > 0 {
		f.Code = policy.Code(t.code.Selected)
	}
	if f.BatchID == "" {
		f.Limit = pageRows
	}
	t.c.keepIDs(&f) // newitems.go
	return f
}

// loadMore reads the next page of the listing and appends it; a refresh
// meanwhile (a new filter, a sync) makes it drop what it read. The table
// holds keepPages pages: past them, the first pages are dropped (loadBefore
// reads them again when she scrolls back).
func (t *itemTable) loadMore() {
	if !t.more || t.loading {
		return
	}
	t.loading = true
	f, gen := t.shown, t.gen
	f.Offset = t.base + len(t.rows)
	t.c.background(func(ctx context.Context) func() {
		rows, err := t.c.wf.Listing.Items(ctx, f)
		return func() {
			if gen != t.gen {
				return
			}
			t.loading = false
			if err != nil {
				t.count.SetText(sentence(err))
				return
			}
			held := append(t.rows, rows...)
			drop := max(len(held)-keepPages*pageRows, 0)
			t.rows = slices.Clone(held[drop:]) // a new array: the dropped rows' memory goes
			t.base += drop
			t.more = len(rows) == f.Limit
			t.shifted(-drop)
		}
	})
}

// loadBefore reads again the page before the rows held, when she scrolls
// back to them, and drops as many rows from the end.
func (t *itemTable) loadBefore() {
	if t.base == 0 || t.loading {
		return
	}
	t.loading = true
	f, gen := t.shown, t.gen
	f.Offset = max(t.base-pageRows, 0)
	f.Limit = t.base - f.Offset
	t.c.background(func(ctx context.Context) func() {
		rows, err := t.c.wf.Listing.Items(ctx, f)
		return func() {
			if gen != t.gen {
				return
			}
			t.loading = false
			if err != nil {
				t.count.SetText(sentence(err))
				return
			}
			if len(rows) != f.Limit {
				t.refresh() // the listing changed under the pages: read it again
				return
			}
			held := append(slices.Clone(rows), t.rows...)
			if keep := keepPages * pageRows; len(held) > keep {
				held, t.more = held[:keep], true
			}
			t.rows = held
			t.base -= len(rows)
			t.shifted(len(rows))
		}
	})
}

// shifted redraws the table after the rows held moved by d places (the
// pages dropped before them, or read again): the selected row, the
// multi-select's anchor and the view keep to the same items.
func (t *itemTable) shifted(d int) {
	t.countNames()
	t.count.SetText(t.countText())
	if d == 0 {
		t.table.Refresh()
		return
	}
	if a := t.c.multi.anchor + d; t.c.multi.anchor >= 0 {
		t.c.multi.anchor = -1
		if a >= 0 && a < len(t.rows) {
			t.c.multi.anchor = a
		}
	}
	off := tableOffset(&t.table.Table)
	off.Y = max(off.Y+float32(d)*t.rowStep(), 0)
	t.table.Refresh()
	t.table.ScrollToOffset(off)
	if t.row >= 0 {
		// Fyne's selection is a row number: it moves with the rows,
		// without the selection's callbacks (nothing was chosen anew).
		// A selected row dropped is selected no more; the panel stays
		// on its item.
		sel := t.table.OnSelected
		t.table.OnSelected = nil
		if r := t.row + d; r >= 0 && r < len(t.rows) {
			t.row = r
			t.table.Select(widget.TableCellID{Row: r, Col: 0})
		} else {
			t.row = -1
			t.table.UnselectAll()
		}
		t.table.OnSelected = sel
	}
}

// rowStep is the height of a row of the table and its separator.
func (t *itemTable) rowStep() float32 {
	return newTipLabel("passport-front.jpg").MinSize().Height + theme.Padding()
}

// tableOffset is how far the table is scrolled (Fyne keeps it to itself).
func tableOffset(t *widget.Table) fyne.Position {
	v := reflect.ValueOf(t).Elem().FieldByName("offset")
	if !v.IsValid() {
		return fyne.Position{}
	}
	return fyne.NewPos(float32(v.FieldByName("X").Float()), float32(v.FieldByName("Y").Float()))
}

func (t *itemTable) countText() string {
	n := t.base + len(t.rows)
	if t.more {
		return plural(n, "item") + " so far (more as you scroll)"
	}
	if t.shown.IDs != nil {
		return plural(n, "item") + " · new from the last sync (pick a batch or a filter to see all)"
	}
	return plural(n, "item")
}

// needsReviewer: the reviewer is the one to act on this item next, as
// policy.NeedsReviewer says (the store's "needs action" filter says the same).
func needsReviewer(v review.ItemView) bool { return v.NeedsReviewer() }

func (t *itemTable) refresh() {
	if t.c.batches == nil || t.c.panel == nil || t.hold {
		return // still being built, or a view is setting its filters
	}
	if all := t.c.batches.batchID() == ""; all != (len(t.cols) > 0 && t.hasColumn("Customer")) {
		t.layoutColumns()
	}
	t.showHeading()
	f := t.filter()
	t.gen++
	gen := t.gen
	t.c.background(func(ctx context.Context) func() {
		rows, err := t.c.wf.Listing.Items(ctx, f)
		return func() {
			if gen != t.gen {
				return // a newer refresh is on its way
			}
			if err != nil {
				t.count.SetText(sentence(err))
				return
			}
			// Keep what is selected now, not what was selected when the
			// refresh started: the reviewer may have moved meanwhile.
			keep := ""
			if t.row >= 0 && t.row < len(t.rows) {
				keep = t.rows[t.row].ID
			}
			if t.wantID != "" {
				keep, t.wantID = t.wantID, ""
			}
			advance := t.advanceFrom != "" && t.advanceFrom == keep
			if t.c.win.Canvas().Overlays().Top() != nil {
				// A dialog is open on the item she is on: the program does
				// not move her away from under it (one item on screen).
				advance = false
			}
			t.advanceFrom = ""
			old := t.rows
			t.rows, t.base = rows, 0
			t.shown, t.more, t.loading = f, f.Limit > 0 && len(rows) == f.Limit, false
			t.countNames()
			t.layoutColumns() // the widths the words of these rows need
			t.count.SetText(t.countText())
			t.table.Refresh()
			target := -1
			for i, r := range rows {
				if r.ID == keep {
					target = i
				}
			}
			if advance {
				target = t.nextNeeding(old, keep, target)
			}
			t.row = -1
			if target >= 0 {
				t.row = target
				t.table.Select(widget.TableCellID{Row: target, Col: 0})
				t.table.ScrollTo(widget.TableCellID{Row: target, Col: 0})
				if t.c.panel.itemID != rows[target].ID {
					t.c.panel.showRow(rows[target])
				} else {
					t.c.panel.refresh()
				}
				return
			}
			t.table.UnselectAll()
			if len(rows) > 0 {
				t.table.Select(widget.TableCellID{Row: 0, Col: 0})
			} else {
				t.c.panel.show("")
			}
		}
	})
}

// nextNeeding is the row of the first item after the one just acted on
// that needs the reviewer (wrapping around), or the current row.
func (t *itemTable) nextNeeding(old []review.ItemView, acted string, cur int) int {
	// Where the acted-on item sat, in case the new list dropped it.
	start := cur
	if start < 0 {
		for i, r := range old {
			if r.ID == acted {
				start = min(i, len(t.rows)) - 1
			}
		}
	}
	n := len(t.rows)
	for k := 1; k <= n; k++ {
		i := ((start+k)%n + n) % n
		if t.rows[i].ID != acted && needsReviewer(t.rows[i]) {
			return i
		}
	}
	return cur
}

func (t *itemTable) hasColumn(title string) bool {
	for _, c := range t.cols {
		if c.title == title {
			return true
		}
	}
	return false
}

func (t *itemTable) onSelected(id widget.TableCellID) {
	if id.Row < 0 || id.Row >= len(t.rows) {
		return
	}
	t.row = id.Row
	if t.c.panel.itemID != t.rows[id.Row].ID || !t.c.panel.loaded {
		t.c.panel.showRow(t.rows[id.Row])
	}
}

// onKey: Up and Down move the selection, Enter opens; the rest is the
// window's (shortcuts work while the table has the focus).
func (t *itemTable) onKey(ev *fyne.KeyEvent) bool {
	shift := t.c.keyMods()&fyne.KeyModifierShift != 0
	switch ev.Name {
	case fyne.KeyUp:
		if shift {
			t.c.onExtend(-1) // select.go (Fyne makes no shortcut of Shift alone)
		} else {
			t.move(-1)
		}
	case fyne.KeyDown:
		if shift {
			t.c.onExtend(1)
		} else {
			t.move(1)
		}
	case fyne.KeyPageUp:
		t.move(-15)
	case fyne.KeyPageDown:
		t.move(15)
	case fyne.KeyHome:
		if t.base > 0 {
			t.refresh() // the first page again, dropped long ago
			return true
		}
		t.move(-len(t.rows))
	case fyne.KeyEnd:
		t.move(len(t.rows))
	case fyne.KeyReturn, fyne.KeyEnter:
		t.open()
	case fyne.KeyLeft, fyne.KeyRight, fyne.KeySpace:
		return false
	default:
		t.c.onKey(ev)
	}
	return true
}

func (t *itemTable) onSort(key string) {
	if key == "" {
		return
	}
	if t.sortBy == key {
		t.desc = !t.desc
	} else {
		t.sortBy, t.desc = key, false
	}
	t.refresh()
}

// move moves the selection up or down (keyboard).
func (t *itemTable) move(delta int) {
	if len(t.rows) == 0 {
		return
	}
	r := min(max(t.row+delta, 0), len(t.rows)-1)
	id := widget.TableCellID{Row: r, Col: 0}
	if r != t.row {
		t.table.Select(id) // which scrolls to the row
		if t.row == r {
			return // a second scroll would update every cell once more
		}
	}
	t.table.ScrollTo(id)
}

// open opens the selected item in the panel (Enter).
func (t *itemTable) open() {
	if t.row >= 0 && t.row < len(t.rows) {
		t.c.panel.showRow(t.rows[t.row])
	}
}

// showSending marks an item's row as sending while its action runs; the
// reload after the outcome shows what the outbox recorded.
func (t *itemTable) showSending(itemID string, kind policy.ActionKind) {
	for i := range t.rows {
		if t.rows[i].ID == itemID {
			t.rows[i].Action = &store.ActionRef{Kind: kind, State: policy.ActionSending}
			t.table.Refresh()
			return
		}
	}
}
