package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// The focus comes back to the work. Fyne hands a key to the focused
// widget, and the canvas's own handlers see it only when nothing has the
// focus; a focused text field also takes every Ctrl shortcut. So each
// focusable widget of the main window passes on what it does not use:
// F5 and F1 (windowKey), the window's Ctrl shortcuts (windowShortcut),
// and, but for text fields, the one-letter commands. In a text field a
// letter, `?` included, is text: F1 shows the sheet from anywhere. After
// a search, a choice in a filter list or a note, the focus goes back to
// the items, so that the arrows and the triage letters work at once.

// Tab follows the drawing. Fyne's Tab walks the focusable widgets in the
// order of their container's objects, and container.NewBorder puts its
// middle first and the edges after: Tab went from the search to the items
// and back up to the filters. drawnBorder is a border laid out the same
// way whose objects are in the order they are drawn (top, left, middle,
// bottom), so that Tab goes search, batches, filters, items. The items'
// column headings are buttons Tab passes over (headerButton).

// drawnBorder is container.NewBorder(top, bottom, left, nil, middle) with
// its objects in the drawing's order (nil edges left out).
func drawnBorder(top, bottom, left, middle fyne.CanvasObject) *fyne.Container {
	var objs []fyne.CanvasObject
	for _, o := range []fyne.CanvasObject{top, left, middle, bottom} {
		if o != nil {
			objs = append(objs, o)
		}
	}
	return container.New(layout.NewBorderLayout(top, bottom, left, nil), objs...)
}

// headerButton is a column heading: a button a click sorts by, that Tab
// passes over (eight headings between the filters and the items were eight
// Tabs in the way; the sort has no key of its own to reach). Fyne's focus
// order skips a widget that says it is disabled; the button's own drawing
// and its click read the button's state, which stays enabled.
//
// The table refreshes every header each time it scrolls or a row is
// selected (Fyne's refreshHeaders, four times for one ↓), and a button's
// refresh styles and lays out its text again: a header whose words, look
// and theme are as last drawn is left as it is. Its own changes (SetText,
// hover, a tap) refresh it as before.
type headerButton struct {
	widget.Button
	drawn string
}

func newHeaderButton() *headerButton {
	b := &headerButton{}
	b.Text = "Header"
	b.ExtendBaseWidget(b)
	return b
}

func (b *headerButton) Refresh() {
	s := fyne.CurrentApp().Settings()
	look := fmt.Sprintf("%s\x00%d\x00%d\x00%T%v", b.Text, b.Importance, s.ThemeVariant(), s.Theme(), s.Theme())
	if look == b.drawn {
		return
	}
	b.drawn = look
	b.Button.Refresh()
}

// Disabled is what the focus order asks: a heading is never on Tab's way.
func (b *headerButton) Disabled() bool { return true }

// focusItems gives the focus to the items table.
func (c *Console) focusItems() {
	if cv := c.win.Canvas(); cv.Overlays().Top() == nil {
		cv.Focus(c.items.table)
	}
}

// searchEntry is the search field: Enter opens the first match and goes
// to its items (OnSubmitted), Esc or ↓ goes back to the items.
type searchEntry struct {
	widget.Entry
	c *Console
}

func newSearchEntry(c *Console) *searchEntry {
	e := &searchEntry{c: c}
	e.ExtendBaseWidget(e)
	return e
}

func (e *searchEntry) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case ev.Name == fyne.KeyEscape || ev.Name == fyne.KeyDown:
		e.c.focusItems()
	case e.c.windowKey(ev):
	default:
		e.Entry.TypedKey(ev)
	}
}

func (e *searchEntry) TypedShortcut(s fyne.Shortcut) {
	if !e.c.windowShortcut(s, true) {
		e.Entry.TypedShortcut(s)
	}
}

// keySelect is a filter list: a choice sends the focus back to the items
// (the list's own OnChanged, then focusItems); the window's keys work on it.
type keySelect struct {
	widget.Select
	c *Console
}

func newKeySelect(c *Console, options []string, changed func(string)) *keySelect {
	s := &keySelect{c: c}
	s.Options = options
	// It starts on its first option, set before it is a widget:
	// SetSelectedIndex would make its renderer while the window is built.
	s.Selected = options[0]
	s.OnChanged = func(v string) {
		changed(v)
		if c.items != nil {
			c.focusItems()
		}
	}
	s.ExtendBaseWidget(s)
	return s
}

func (s *keySelect) TypedKey(ev *fyne.KeyEvent) {
	if !s.c.windowKey(ev) {
		s.Select.TypedKey(ev)
	}
}

func (s *keySelect) TypedRune(r rune) {
	if r != ' ' {
		s.c.onRune(r)
	}
}

// keyCheck is a check box whose space toggles it and whose other keys are
// the window's.
type keyCheck struct {
	widget.Check
	c *Console
}

// newFilterCheck is a check box that filters the items ("Needs my
// action", "All batches"): ticked by Space or a click, it gives the focus
// back to the items, so that Tab, End, ↓ and the letters work at once.
func newFilterCheck(c *Console, label string, changed func(bool)) *keyCheck {
	k := newKeyCheck(c, label, changed)
	k.OnChanged = func(on bool) {
		changed(on)
		if c.items != nil {
			c.focusItems()
		}
	}
	return k
}

func newKeyCheck(c *Console, label string, changed func(bool)) *keyCheck {
	k := &keyCheck{c: c}
	k.Text, k.OnChanged = label, changed
	k.ExtendBaseWidget(k)
	return k
}

func (k *keyCheck) TypedKey(ev *fyne.KeyEvent) {
	if !k.c.windowKey(ev) {
		k.Check.TypedKey(ev)
	}
}

func (k *keyCheck) TypedRune(r rune) {
	if r == ' ' {
		k.Check.TypedRune(r)
		return
	}
	k.c.onRune(r)
}

// textEntry is a text field of the main window (the note): F5, F1 and the
// window's Ctrl shortcuts work in it; letters, `?` included, are text.
// Ctrl+Enter sends it (submit), Tab leaves it: a tab character has no
// place in a note.
type textEntry struct {
	wordEntry
	c      *Console
	submit func() // Ctrl+Enter (nil: nothing)
}

// AcceptsTab: Tab moves the focus on, out of the field.
func (e *textEntry) AcceptsTab() bool { return false }

// newTextEntry is a field of rows lines wrapped at words. It is set up
// before it is a widget: each of Entry's setters refreshes a widget, and a
// refresh makes its renderer, measuring text, at the window's start, for
// a field that shows only when an item is open.
func newTextEntry(c *Console, rows int, placeHolder string) *textEntry {
	e := &textEntry{c: c}
	e.MultiLine, e.Wrapping, e.PlaceHolder = true, fyne.TextWrapWord, placeHolder
	e.SetMinRowsVisible(rows)
	e.ExtendBaseWidget(e)
	return e
}

func (e *textEntry) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case ev.Name == fyne.KeyTab:
		// The driver moves the focus itself for a field that does not
		// accept Tab; a Tab handed over is a move too.
		e.c.win.Canvas().FocusNext()
	case e.c.windowKey(ev):
	default:
		e.Entry.TypedKey(ev)
	}
}

func (e *textEntry) TypedShortcut(s fyne.Shortcut) {
	if isCtrlEnter(s) { // form.go
		if e.submit != nil {
			e.submit()
		}
		return
	}
	if !e.c.windowShortcut(s, true) {
		e.Entry.TypedShortcut(s)
	}
}
