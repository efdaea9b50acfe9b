package ui

import (
	"fmt"
	"sort"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// Multi-select for bulk actions: Ctrl-click adds or removes a
// row, Shift-click and Shift+Up/Down extend from the anchor, Ctrl+A selects
// every row in view; a plain click starts over. Selected rows are marked
// "● " in the file column. A bulk action acts on the selection when there
// is one, else on every item in view.

// multiSelect is the selected items, by id, so that a refresh keeps them.
type multiSelect struct {
	ids    map[string]bool
	anchor int // row of the last plain or Ctrl click; -1 none
}

func (m *multiSelect) has(id string) bool { return m.ids[id] }

// list returns the selected ids in a stable order.
func (m *multiSelect) list() []string {
	out := make([]string, 0, len(m.ids))
	for id := range m.ids {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func currentModifiers() fyne.KeyModifier {
	if d, ok := fyne.CurrentApp().Driver().(desktop.Driver); ok {
		return d.CurrentKeyModifiers()
	}
	return 0
}

// addSelectShortcuts wraps the table's selection with the modifiers (the
// keys of multi-select are bound from windowKeys). Only a click reads the
// modifiers held: a row the program selects (a reload keeping the row, a
// view applied while Ctrl is still down from Ctrl+1) or an arrow key moves
// the cursor, and the cursor row is never a selection of its own.
func (c *Console) addSelectShortcuts() {
	c.multi = multiSelect{ids: map[string]bool{}, anchor: -1}
	orig := c.items.table.OnSelected
	c.items.table.OnSelected = func(id widget.TableCellID) {
		var mods fyne.KeyModifier
		if tappedTable == c.items.table {
			mods = c.keyMods()
		}
		c.onRowClick(id.Row, mods)
		if orig != nil {
			orig(id)
		}
	}
}

// tappedTable is the table being clicked, while its click selects a row
// (UI goroutine only; keyTable.Tapped sets it).
var tappedTable *keyTable

// onRowClick applies a click on a row with the modifiers held.
func (c *Console) onRowClick(row int, mods fyne.KeyModifier) {
	rows := c.items.rows
	if row < 0 || row >= len(rows) {
		return
	}
	m := &c.multi
	switch {
	case mods&fyne.KeyModifierShift != 0 && m.anchor >= 0:
		lo, hi := min(m.anchor, row), max(m.anchor, row)
		for i := lo; i <= hi && i < len(rows); i++ {
			m.ids[rows[i].ID] = true
		}
	case mods&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0:
		id := rows[row].ID
		if m.ids[id] {
			delete(m.ids, id)
		} else {
			m.ids[id] = true
		}
		m.anchor = row
	default:
		clear(m.ids)
		m.anchor = row
	}
	c.showSelection()
}

// onExtend extends the selection from the current row by one (Shift+arrows).
func (c *Console) onExtend(delta int) {
	t := c.items
	if len(t.rows) == 0 {
		return
	}
	if c.multi.anchor < 0 {
		c.multi.anchor = max(t.row, 0)
	}
	if t.row >= 0 {
		c.multi.ids[t.rows[t.row].ID] = true
	}
	next := min(max(t.row+delta, 0), len(t.rows)-1)
	c.multi.ids[t.rows[next].ID] = true
	t.row = next
	t.table.ScrollTo(widget.TableCellID{Row: next, Col: 0})
	c.showSelection()
}

// onSelectAll selects every row in view (the rows read so far; with no
// selection a bulk action takes every item the filters list).
func (c *Console) onSelectAll() {
	for _, r := range c.items.rows {
		c.multi.ids[r.ID] = true
	}
	c.showSelection()
}

func (c *Console) showSelection() {
	t := c.items
	text := t.countText()
	if n := len(c.multi.ids); n > 0 {
		text += fmt.Sprintf(" · %d selected (Ctrl+Shift+R re-submits them, Ctrl+Shift+N asks for new files)", n)
	}
	t.count.SetText(text)
	t.table.Refresh()
}

// selectionMark marks a selected row's file cell.
func (c *Console) selectionMark(row, col int, text string) string {
	if col == 0 && row >= 0 && row < len(c.items.rows) && c.multi.has(c.items.rows[row].ID) {
		return "● " + text
	}
	return text
}
