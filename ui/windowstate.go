package ui

import (
	"encoding/json"
	"time"

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
	prefPanelOffset  = "panel_offset"   // the items' share beside the panel
	prefLastView     = "last_view"      // the batch, filters and sort, as a saved view keeps them (JSON)
	prefLastViewName = "last_view_name" // the name of the view in force ("" none): the heading after a restart
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
// batch, filters and sort in force, now (on quit, or when the window
// hides to the tray); it reports whether anything changed.
func (c *Console) keepWindowState() bool { return c.windowState().write(c.settings.store()) }

// keepWindowStateSoon keeps them as she works: at every reload (a change
// of view, a sync, an action), so that a window that is killed, or a
// session that ends without a quit, reopens as she last worked in it.
// Only what changed is written, on the UI goroutine. Fyne saves its
// preferences file at each change by truncating and rewriting it, and
// watches the file's folder to read it again when it changes (its
// app/preferences.go): a save off the UI goroutine truncated the file
// while the watcher's read ran on it, and Fyne said "Preferences load
// error: EOF" at the first start. On the one goroutine the two never meet.
func (c *Console) keepWindowStateSoon() {
	c.keepWindowState()
}

// prefsSettle is how long Fyne takes to save a burst of preference
// changes: the first change saves at once, those within the next 100 ms
// are saved together when it has passed (app/preferences.go,
// resetSavedRecently). Quit waits that long after writing the window's
// state (quit, tray.go).
const prefsSettle = 250 * time.Millisecond

// windowState is what keepWindowState keeps; a zero field is not kept.
type windowState struct {
	size   fyne.Size
	offset float64
	view   string // JSON of review.ViewFilter
	name   string // the view in force, "" none
}

// windowState reads the window's state (on the UI goroutine).
func (c *Console) windowState() windowState {
	var st windowState
	if sz := c.win.Canvas().Size(); sz.Width >= minKeptSize.Width && sz.Height >= minKeptSize.Height {
		st.size = sz
	}
	if !c.panelOff && c.right.Offset > 0 && c.right.Offset < 1 {
		st.offset = c.right.Offset
	}
	if b, err := json.Marshal(c.currentView()); err == nil {
		st.view = string(b)
	}
	st.name = c.viewInForce() // views.go
	return st
}

// write keeps what changed; it reports whether anything did.
func (st windowState) write(p fyne.Preferences) bool {
	wrote := false
	setFloat := func(k string, v float64) {
		if p.Float(k) != v {
			p.SetFloat(k, v)
			wrote = true
		}
	}
	if st.size != (fyne.Size{}) {
		setFloat(prefWindowWidth, float64(st.size.Width))
		setFloat(prefWindowHeight, float64(st.size.Height))
	}
	if st.offset != 0 {
		setFloat(prefPanelOffset, st.offset)
	}
	if st.view != "" && p.String(prefLastView) != st.view {
		p.SetString(prefLastView, st.view)
		wrote = true
	}
	if st.view != "" && p.String(prefLastViewName) != st.name {
		p.SetString(prefLastViewName, st.name)
		wrote = true
	}
	return wrote
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
	f := c.wf.Triage.ItemFilter(v)
	t := c.items
	t.hold = true // the first read (Start) reads with all of them
	defer func() { t.hold = false }()
	c.view = viewState{name: p.String(prefLastViewName), extra: f.TriageFilter, filter: v}
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
