package ui

import (
	"encoding/json"

	"fyne.io/fyne/v2"

	"github.com/trustscreen/reviewer/review"
)

// The window reopens as the reviewer left it: its size, the item panel's
// width (the split's offset), the batch she had open (or all batches), the
// filters and the sort. They are kept in the window's preferences (the
// demo keeps its own) as she works (keepWindowState), and read when the
// window is built. A list of ids (the news of a sync) is
// not kept: it is news only once.

// Preference keys of the window's state.
const (
	prefWindowWidth  = "window_width"
	prefWindowHeight = "window_height"
	prefPanelOffset  = "panel_offset" // the items' share beside the panel
	prefLastView     = "last_view"    // the batch, filters and sort, as a saved view keeps them (JSON)
)

// defaultWindowSize is the window's size at its first start.
var defaultWindowSize = fyne.NewSize(1280, 800)

// minKeptSize is the least size a kept size is taken at (a window
// minimised or made tiny opens at its default instead).
var minKeptSize = fyne.NewSize(640, 480)

// keptWindowSize is the size the window was left at, or the default.
func keptWindowSize(p fyne.Preferences) fyne.Size {
	w, h := float32(p.Float(prefWindowWidth)), float32(p.Float(prefWindowHeight))
	if w < minKeptSize.Width || h < minKeptSize.Height {
		return defaultWindowSize
	}
	return fyne.NewSize(w, h)
}

// keepWindowState keeps the window's size, the panel's width, and the
// batch, filters and sort in force. It runs at every reload (a change of
// view, a sync, an action) as well as on quit, so that a window that is
// killed, or a session that ends without a quit, reopens as she last
// worked in it; only what changed is written.
func (c *Console) keepWindowState() {
	p := c.settings.store()
	setFloat := func(k string, v float64) {
		if p.Float(k) != v {
			p.SetFloat(k, v)
		}
	}
	if sz := c.win.Canvas().Size(); sz.Width >= minKeptSize.Width && sz.Height >= minKeptSize.Height {
		setFloat(prefWindowWidth, float64(sz.Width))
		setFloat(prefWindowHeight, float64(sz.Height))
	}
	if !c.panelOff && c.right.Offset > 0 && c.right.Offset < 1 {
		setFloat(prefPanelOffset, c.right.Offset)
	}
	if b, err := json.Marshal(c.currentView()); err == nil && p.String(prefLastView) != string(b) {
		p.SetString(prefLastView, string(b))
	}
}

// restoreWindowState sets the panel's width, the batch, the filters and
// the sort as they were kept, before the first read of the cache (Start).
func (c *Console) restoreWindowState() {
	p := c.settings.store()
	if o := p.Float(prefPanelOffset); o > 0.2 && o < 0.95 {
		c.right.Offset = o
	}
	raw := p.String(prefLastView)
	if raw == "" {
		return
	}
	var v review.ViewFilter
	if json.Unmarshal([]byte(raw), &v) != nil {
		return
	}
	f := c.wf.ItemFilter(v)
	t := c.items
	t.hold = true // the first read (Start) reads with all of them
	defer func() { t.hold = false }()
	c.view = viewState{extra: f.TriageFilter, filter: v}
	t.sortBy, t.desc = f.SortBy, f.Desc
	for i, s := range statusFilter {
		if s.status != "" && s.status == f.Status {
			t.status.SetSelectedIndex(i)
		}
	}
	if f.Code != "" {
		t.code.SetSelected(string(f.Code))
	}
	t.needs.SetChecked(f.NeedsAction)
	if v.BatchID == "" {
		c.batches.all.SetChecked(true)
	} else {
		c.batches.selected = v.BatchID
		c.batches.restored = true
	}
}
