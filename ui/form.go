package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Dialogs from the keyboard: every dialog of the window is a dialogForm,
// built from its fields and buttons, so that they all answer the same keys.
//   - The first field has the focus when the dialog opens.
//   - Tab and Shift+Tab move between fields and buttons (a multi-line field
//     never takes a Tab), and the focused button draws a ring.
//   - Esc cancels, wherever the focus is.
//   - Enter in a field presses the default button; in a multi-line field
//     Enter makes a new line and Ctrl+Enter presses the default button
//     (multiLineHint says so under the field). Space on a focused button
//     presses that button; Enter does too, unless the default button says
//     "(Enter)": a button that names a key answers it wherever the focus is.
//
// Fyne's own entries, buttons, selects and checks keep Esc (and a
// multi-line entry Tab) when they have the focus; the window's key handler
// never sees them. The field types below take those keys for the dialog.

// multiLineHint is the line under a multi-line field.
const multiLineHint = "Ctrl+Enter sends · Enter starts a new line · Tab moves to the next field"

// dialogForm is one open dialog and its keys.
type dialogForm struct {
	win fyne.Window
	c   *Console // nil: outside the console's key handler (the dialog takes Esc and Enter from the canvas)
	dlg *dialog.CustomDialog

	first fyne.Focusable
	def   *formButton // pressed by Enter in a field (nil: none)
	// whileOff, when set, runs on Enter while def is off (the upload
	// dialog remembers it until its path's check answers).
	whileOff func()
	// onClosed runs whenever the dialog closes.
	onClosed func()

	prevEnter, prevEscape func()
	open                  bool
}

func newDialogForm(win fyne.Window, c *Console) *dialogForm {
	return &dialogForm{win: win, c: c}
}

// focusFirst makes o the field that has the focus when the dialog opens
// (the first field made, unless set).
func (f *dialogForm) focusFirst(o fyne.Focusable) { f.first = o }

func (f *dialogForm) field(o fyne.Focusable) {
	if f.first == nil {
		f.first = o
	}
}

// entry is a one-line field: Enter presses the default button.
func (f *dialogForm) entry() *formEntry {
	e := &formEntry{form: f}
	e.ExtendBaseWidget(e)
	f.field(e)
	return e
}

// multiLine is a field of several lines, wrapped at words.
func (f *dialogForm) multiLine(rows int) *formEntry {
	e := &formEntry{form: f}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	e.SetMinRowsVisible(rows)
	f.field(e)
	return e
}

// hint is the line under a multi-line field that says its keys.
func (f *dialogForm) hint() *textLabel {
	l := newLabel(multiLineHint) // full contrast: the faint low importance is hard to read
	l.Wrapping = fyne.TextWrapWord
	return l
}

// choice is a drop-down list: ←/→ change it, Space or ↑/↓ open it.
func (f *dialogForm) choice(options []string, changed func(string)) *formSelect {
	s := &formSelect{form: f}
	s.Options = options
	s.OnChanged = changed
	s.ExtendBaseWidget(s)
	f.field(s)
	return s
}

// check is a check box: Space ticks it.
func (f *dialogForm) check(text string, changed func(bool)) *formCheck {
	k := &formCheck{form: f}
	k.Text = text
	k.OnChanged = changed
	k.ExtendBaseWidget(k)
	f.field(k)
	return k
}

// button is a button of the dialog.
func (f *dialogForm) button(text string, tapped func()) *formButton {
	b := &formButton{form: f}
	b.Text = text
	b.OnTapped = tapped
	b.ExtendBaseWidget(b)
	return b
}

// defaultButton is the button Enter presses: "label (Enter)", or
// "label (Ctrl+Enter)" when the dialog has a multi-line field.
func (f *dialogForm) defaultButton(text string, tapped func()) *formButton {
	b := f.button(text, tapped)
	b.Importance = widget.HighImportance
	f.def = b
	return b
}

// cancelButton closes the dialog as Esc does.
func (f *dialogForm) cancelButton(text string) *formButton {
	return f.button(text, f.cancel)
}

// submit presses the default button, if it is on; when it is off,
// whileOff (if set) is told that Enter was pressed.
func (f *dialogForm) submit() {
	if f.def != nil && f.def.Disabled() && !f.def.Hidden && f.whileOff != nil {
		f.whileOff()
		return
	}
	if f.def == nil || f.def.Disabled() || f.def.Hidden || f.def.OnTapped == nil {
		return
	}
	f.def.OnTapped()
}

// cancel closes the dialog without its action (Esc, Cancel).
func (f *dialogForm) cancel() {
	if !f.open {
		return
	}
	f.hide()
}

// hide closes the dialog.
func (f *dialogForm) hide() {
	if f.dlg != nil && f.open {
		f.dlg.Hide()
	}
}

// focusNext moves the focus as Tab does (a field that was handed a Tab).
func (f *dialogForm) focusNext() {
	if f.win != nil {
		f.win.Canvas().FocusNext()
	}
}

// show opens the dialog: title, body, and its buttons (left to right), at
// width and as tall as its content; the first field takes the focus.
func (f *dialogForm) show(title string, body fyne.CanvasObject, buttons []fyne.CanvasObject, width float32) {
	f.dlg = dialog.NewCustomWithoutButtons(drawn(title), body, f.win)
	f.dlg.SetButtons(buttons)
	cv := f.win.Canvas()
	var prevKey func(*fyne.KeyEvent)
	f.dlg.SetOnClosed(func() {
		f.open = false
		if f.c != nil {
			f.c.onEnter, f.c.onEscape = f.prevEnter, f.prevEscape
		} else {
			cv.SetOnTypedKey(prevKey)
		}
		if f.onClosed != nil {
			f.onClosed()
		}
	})
	if f.c != nil {
		// With nothing focused (a click on the dialog's background), the
		// window's key handler gets Esc and Enter.
		f.prevEnter, f.prevEscape = f.c.onEnter, f.c.onEscape
		f.c.onEnter, f.c.onEscape = f.submit, f.cancel
	} else {
		// Outside the console's own key handler (preferences), the dialog
		// takes Esc and Enter from the canvas while it is open.
		prevKey = cv.OnTypedKey()
		cv.SetOnTypedKey(func(ev *fyne.KeyEvent) {
			switch {
			case ev.Name == fyne.KeyEscape:
				f.cancel()
			case ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter:
				f.submit()
			case prevKey != nil:
				prevKey(ev)
			}
		})
	}
	f.resize(width)
	f.open = true
	f.dlg.Show()
	if f.first != nil {
		f.win.Canvas().Focus(f.first)
	}
}

// resize sets the dialog's width and fits its height to its content. A
// wrapped text asks for its height at the width it is laid out with: the
// height is asked again once the width is set.
func (f *dialogForm) resize(width float32) {
	for range 2 {
		min := f.dlg.MinSize()
		f.dlg.Resize(fyne.NewSize(fyne.Max(width, min.Width), min.Height))
	}
}

// dialogKey handles the keys every field of a dialog answers; it reports
// whether it took the key.
func (f *dialogForm) dialogKey(ev *fyne.KeyEvent, enterSubmits bool) bool {
	switch ev.Name {
	case fyne.KeyEscape:
		f.cancel()
		return true
	case fyne.KeyReturn, fyne.KeyEnter:
		if enterSubmits {
			f.submit()
			return true
		}
	case fyne.KeyTab:
		// The driver moves the focus itself unless a field accepts Tab;
		// none here does, so a Tab handed over is a move too.
		f.focusNext()
		return true
	}
	return false
}

// namesEnter reports whether a button's label names the plain Enter key.
func namesEnter(label string) bool { return strings.HasSuffix(label, "(Enter)") }

// isCtrlEnter reports whether a shortcut is Ctrl+Enter (Cmd+Enter on a Mac).
func isCtrlEnter(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || (cs.KeyName != fyne.KeyReturn && cs.KeyName != fyne.KeyEnter) {
		return false
	}
	return cs.Modifier == fyne.KeyModifierControl || cs.Modifier == fyne.KeyModifierSuper
}

// formEntry is a text field of a dialog.
type formEntry struct {
	wordEntry
	form *dialogForm
}

// AcceptsTab: Tab moves the focus, even out of a multi-line field (a tab
// character has no place in a message to a customer).
func (e *formEntry) AcceptsTab() bool { return false }

func (e *formEntry) TypedKey(ev *fyne.KeyEvent) {
	if e.form.dialogKey(ev, !e.MultiLine) {
		return
	}
	e.Entry.TypedKey(ev)
}

func (e *formEntry) TypedShortcut(s fyne.Shortcut) {
	if isCtrlEnter(s) {
		e.form.submit()
		return
	}
	e.Entry.TypedShortcut(s)
}

// cursorToEnd puts the cursor after the text (a prefilled message is added
// to, not pushed down by a new line at its start).
func (e *formEntry) cursorToEnd() {
	e.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageDown})
	if e.MultiLine {
		e.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd})
	}
}

// formSelect is a drop-down field of a dialog.
type formSelect struct {
	widget.Select
	form *dialogForm
}

func (s *formSelect) TypedKey(ev *fyne.KeyEvent) {
	if s.form.dialogKey(ev, true) {
		return
	}
	s.Select.TypedKey(ev)
}

func (s *formSelect) TypedShortcut(sc fyne.Shortcut) {
	if isCtrlEnter(sc) {
		s.form.submit()
	}
}

// formCheck is a check box of a dialog.
type formCheck struct {
	widget.Check
	form *dialogForm
}

func (k *formCheck) TypedKey(ev *fyne.KeyEvent) {
	if k.form.dialogKey(ev, true) {
		return
	}
	k.Check.TypedKey(ev)
}

func (k *formCheck) TypedShortcut(sc fyne.Shortcut) {
	if isCtrlEnter(sc) {
		k.form.submit()
	}
}

// formButton is a button of a dialog. Enter or Space presses it when it has
// the focus, and a ring shows that it has (Fyne's own focus tint is lost on
// a primary-coloured button).
type formButton struct {
	widget.Button
	form    *dialogForm
	focused bool
}

func (b *formButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if d := b.form.def; d != nil && d != b && namesEnter(d.Text) {
			// The button labelled "(Enter)" answers Enter wherever the
			// focus is in the dialog (Space presses the focused one).
			b.form.submit()
			return
		}
		b.Tapped(nil)
		return
	}
	if b.form.dialogKey(ev, false) {
		return
	}
	b.Button.TypedKey(ev)
}

func (b *formButton) TypedShortcut(sc fyne.Shortcut) {
	if isCtrlEnter(sc) {
		b.form.submit()
	}
}

func (b *formButton) FocusGained() {
	b.focused = true
	b.Button.FocusGained()
}

func (b *formButton) FocusLost() {
	b.focused = false
	b.Button.FocusLost()
}

func (b *formButton) CreateRenderer() fyne.WidgetRenderer {
	ring := canvas.NewRectangle(nil)
	ring.Hidden = true
	r := &ringRenderer{WidgetRenderer: b.Button.CreateRenderer(), ring: ring, b: b}
	r.Refresh()
	return r
}

// ringRenderer draws a button with a ring around it while it has the focus.
type ringRenderer struct {
	fyne.WidgetRenderer
	ring *canvas.Rectangle
	b    *formButton
}

func (r *ringRenderer) Objects() []fyne.CanvasObject {
	return append(append([]fyne.CanvasObject(nil), r.WidgetRenderer.Objects()...), r.ring)
}

func (r *ringRenderer) Layout(size fyne.Size) {
	r.WidgetRenderer.Layout(size)
	r.ring.Move(fyne.NewPos(0, 0))
	r.ring.Resize(size)
}

func (r *ringRenderer) Refresh() {
	r.WidgetRenderer.Refresh()
	th := r.b.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.ring.StrokeColor = th.Color(theme.ColorNameForeground, v)
	r.ring.StrokeWidth = 2
	r.ring.CornerRadius = th.Size(theme.SizeNameInputRadius)
	r.ring.Hidden = !r.b.focused
	r.ring.Refresh()
}
