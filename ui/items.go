package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
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
	text  func(review.ItemView) (string, widget.Importance)
}

var columns = []column{
	{"File", "file", 116, func(v review.ItemView) (string, widget.Importance) { return v.FileName, widget.MediumImportance }},
	{"Kind", "kind", 54, func(v review.ItemView) (string, widget.Importance) {
		if v.Kind == policy.KindSelfie {
			return "selfie", widget.MediumImportance
		}
		return "ID", widget.MediumImportance
	}},
	{"Status", "status", 112, statusCell},
	{"Score", "score", 46, func(v review.ItemView) (string, widget.Importance) { return scoreText(v.Item), widget.MediumImportance }},
	{"Rec.", "recommendation", 62, func(v review.ItemView) (string, widget.Importance) {
		return recommendationText(v.Item), widget.MediumImportance
	}},
	{"Code", "code", 192, func(v review.ItemView) (string, widget.Importance) {
		if v.ErrorCode == "" {
			return "—", widget.LowImportance
		}
		return string(v.ErrorCode), widget.MediumImportance
	}},
	{"Retry", "", 44, func(v review.ItemView) (string, widget.Importance) {
		if v.Retryable {
			return "yes", widget.MediumImportance
		}
		return "—", widget.LowImportance
	}},
	{"Action", "", 86, func(v review.ItemView) (string, widget.Importance) {
		if v.Action != nil && v.Action.State == policy.ActionUnknown {
			return actionText(v), widget.WarningImportance
		}
		return actionText(v), widget.MediumImportance
	}},
}

func statusCell(v review.ItemView) (string, widget.Importance) { return statusLook(v.Item) }

var statusOptions = []string{"All statuses", "scored", "error", "invalid", "pending", "awaiting_file"}

// itemTable is the sortable items table in the middle.
type itemTable struct {
	c       *Console
	table   *widget.Table
	status  *widget.Select
	code    *widget.Select
	needs   *widget.Check
	count   *widget.Label
	rows    []review.ItemView
	sortBy  string
	desc    bool
	row     int // selected row, -1 none
	gen     int
	content fyne.CanvasObject
}

func newItemTable(c *Console) *itemTable {
	t := &itemTable{c: c, row: -1, count: widget.NewLabel("")}
	t.status = widget.NewSelect(statusOptions, func(string) { t.refresh() })
	t.status.SetSelectedIndex(0)
	codes := []string{"All codes"}
	for _, code := range policy.ItemCodes() {
		codes = append(codes, string(code))
	}
	codes = append(codes, string(policy.CodeInvalidResponse))
	t.code = widget.NewSelect(codes, func(string) { t.refresh() })
	t.code.SetSelectedIndex(0)
	t.needs = widget.NewCheck("Needs my action", func(bool) { t.refresh() })
	t.count.Importance = widget.LowImportance

	t.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(t.rows), len(columns) },
		func() fyne.CanvasObject { return widget.NewLabel("passport-front.jpg") },
		t.updateCell)
	t.table.ShowHeaderColumn = false
	t.table.CreateHeader = func() fyne.CanvasObject { return widget.NewButton("Header", nil) }
	t.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		b := o.(*widget.Button)
		col := columns[id.Col]
		b.SetText(col.title + t.sortMark(col.sort))
		b.Importance = widget.LowImportance
		b.OnTapped = func() { t.onSort(col.sort) }
	}
	for i, col := range columns {
		t.table.SetColumnWidth(i, col.width)
	}
	t.table.OnSelected = t.onSelected
	filters := container.NewHBox(t.needs, t.status, t.code, t.count)
	t.content = container.NewBorder(filters, nil, nil, nil, t.table)
	return t
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
	l := o.(*widget.Label)
	if id.Row < 0 || id.Row >= len(t.rows) {
		l.SetText("")
		return
	}
	text, imp := columns[id.Col].text(t.rows[id.Row])
	l.Importance = imp
	l.Truncation = fyne.TextTruncateEllipsis
	l.SetText(text)
}

// filter is what the filters select.
func (t *itemTable) filter() store.ItemFilter {
	f := store.ItemFilter{BatchID: t.c.batches.batchID(), NeedsAction: t.needs.Checked, SortBy: t.sortBy, Desc: t.desc}
	if t.status.SelectedIndex() > 0 {
		f.Status = policy.Status(t.status.Selected)
	}
	if t.code.SelectedIndex() > 0 {
		f.Code = policy.Code(t.code.Selected)
	}
	if f.BatchID == "" {
		f.Limit = 2000
	}
	return f
}

func (t *itemTable) refresh() {
	if t.c.batches == nil || t.c.panel == nil {
		return // still being built
	}
	f := t.filter()
	t.gen++
	gen := t.gen
	t.c.background(func(ctx context.Context) func() {
		rows, err := t.c.wf.Items(ctx, f)
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
			t.rows = rows
			t.count.SetText(plural(len(rows), "item"))
			t.table.Refresh()
			t.row = -1
			for i, r := range rows {
				if r.ID == keep {
					t.row = i
					t.table.Select(widget.TableCellID{Row: i, Col: 0})
				}
			}
			if t.row < 0 {
				t.table.UnselectAll()
				if len(rows) > 0 {
					t.table.Select(widget.TableCellID{Row: 0, Col: 0})
				} else {
					t.c.panel.show("")
				}
			}
		}
	})
}

func (t *itemTable) onSelected(id widget.TableCellID) {
	if id.Row < 0 || id.Row >= len(t.rows) {
		return
	}
	changed := t.row != id.Row
	t.row = id.Row
	if changed || t.c.panel.itemID != t.rows[id.Row].ID {
		t.c.panel.show(t.rows[id.Row].ID)
	}
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
	t.table.Select(widget.TableCellID{Row: r, Col: 0})
	t.table.ScrollTo(widget.TableCellID{Row: r, Col: 0})
}

// open opens the selected item in the panel (Enter).
func (t *itemTable) open() {
	if t.row >= 0 && t.row < len(t.rows) {
		t.c.panel.show(t.rows[t.row].ID)
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
