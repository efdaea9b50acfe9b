package ui

import (
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// tipDelay is how long the mouse rests on a widget before its tooltip shows.
const tipDelay = 600 * time.Millisecond

// tooltip shows a short text in a pop-up beside the mouse while it rests on
// a widget. Fyne 2.7 has no tooltips of its own.
type tooltip struct {
	mu    sync.Mutex
	gen   int
	popup *widget.PopUp
}

// in starts the delay; text is read when it ends (it may change).
func (t *tooltip) in(obj fyne.CanvasObject, ev *desktop.MouseEvent, text func() string) {
	t.mu.Lock()
	t.gen++
	gen := t.gen
	t.mu.Unlock()
	pos := ev.AbsolutePosition
	time.AfterFunc(tipDelay, func() {
		toUI(false, func() { // thread.go: nothing, once the window has ended
			t.mu.Lock()
			defer t.mu.Unlock()
			if gen != t.gen {
				return
			}
			t.showLocked(obj, pos, text())
		})
	})
}

func (t *tooltip) showLocked(obj fyne.CanvasObject, pos fyne.Position, text string) {
	if text == "" {
		return
	}
	c := fyne.CurrentApp().Driver().CanvasForObject(obj)
	if c == nil {
		return
	}
	text = drawn(text)
	l := wrapped(text)
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	content := container.NewStack(bg, l)
	t.popup = widget.NewPopUp(content, c)
	w := fyne.Min(fyne.MeasureText(text, theme.TextSize(), fyne.TextStyle{}).Width+4*theme.InnerPadding(), 420)
	t.popup.Resize(fyne.NewSize(w, l.MinSize().Height))
	sz := t.popup.Content.MinSize()
	w = fyne.Max(w, sz.Width)
	t.popup.Resize(fyne.NewSize(w, sz.Height))
	at := pos.Add(fyne.NewPos(12, 18))
	if cs := c.Size(); at.X+w > cs.Width {
		at.X = fyne.Max(0, cs.Width-w)
	}
	if cs := c.Size(); at.Y+sz.Height > cs.Height {
		at.Y = fyne.Max(0, pos.Y-sz.Height-8)
	}
	t.popup.ShowAtPosition(at)
}

func (t *tooltip) out() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen++
	if t.popup != nil {
		t.popup.Hide()
		t.popup = nil
	}
}

// tipButton is a button with a tooltip (which names its key).
type tipButton struct {
	widget.Button
	Tip string
	tip tooltip
}

func newTipButton(label string, icon fyne.Resource, tip string, tapped func()) *tipButton {
	b := tipButtonOf(label, icon, tip, tapped)
	b.ExtendBaseWidget(b)
	return b
}

// newOffTipButton is a tipButton that starts disabled. It is disabled
// before it is a widget: Disable refreshes a widget, and a refresh makes
// its renderer, measuring its text, while the window is being built.
func newOffTipButton(label string, icon fyne.Resource, tip string, tapped func()) *tipButton {
	b := tipButtonOf(label, icon, tip, tapped)
	b.Disable()
	b.ExtendBaseWidget(b)
	return b
}

// tipButtonOf is a tipButton not yet extended as a widget.
func tipButtonOf(label string, icon fyne.Resource, tip string, tapped func()) *tipButton {
	b := &tipButton{Tip: tip}
	b.Text, b.Icon, b.OnTapped = drawn(label), icon, tapped
	return b
}

// SetText draws the button's text through the gate (text.go).
func (b *tipButton) SetText(text string) { b.Button.SetText(drawn(text)) }

func (b *tipButton) MouseIn(ev *desktop.MouseEvent) {
	b.Button.MouseIn(ev)
	b.tip.in(b, ev, func() string { return b.Tip })
}

func (b *tipButton) MouseOut() {
	b.Button.MouseOut()
	b.tip.out()
}

func (b *tipButton) Tapped(ev *fyne.PointEvent) {
	b.tip.out()
	b.Button.Tapped(ev)
}

// tipLabel is a table cell label that shows its whole text in a tooltip
// when the cell is too narrow for it, or its hint when it has one.
type tipLabel struct {
	widget.Label
	tip   tooltip
	hint  string
	whole bool // never cut (a label in a row of its own width)
}

func newTipLabel(text string) *tipLabel {
	l := &tipLabel{}
	l.Text = drawn(text)
	l.Truncation = fyne.TextTruncateEllipsis // a small MinSize: a template row asks for no width
	l.ExtendBaseWidget(l)
	return l
}

// truncated reports whether the text is wider than the label.
func (l *tipLabel) truncated() bool { return l.wider(l.Size().Width) }

func (l *tipLabel) wider(width float32) bool {
	th := l.Theme()
	return fyne.MeasureText(l.Text, th.Size(theme.SizeNameText), l.TextStyle).Width+2*th.Size(theme.SizeNameInnerPadding) > width
}

// SetText sets the text, cut with an ellipsis only when it is wider than
// the label (or the label has no width yet). Fyne's ellipsis shapes the
// text from scratch at every update, with a new HarfBuzz font each time,
// whether or not it fits: on a table's short cells that was most of the
// window's start-up work and garbage. A measure is cached.
func (l *tipLabel) SetText(text string) {
	l.Text = drawn(text)
	l.Truncation = l.cut(l.Size().Width)
	l.Refresh()
}

// Resize cuts the text again for the new width.
func (l *tipLabel) Resize(s fyne.Size) {
	if s == l.Size() {
		return
	}
	l.Label.Resize(s)
	if t := l.cut(s.Width); t != l.Truncation {
		l.Truncation = t
		l.Refresh()
	}
}

func (l *tipLabel) cut(width float32) fyne.TextTruncation {
	if l.whole {
		return fyne.TextTruncateOff
	}
	if width <= 0 || l.wider(width) {
		return fyne.TextTruncateEllipsis
	}
	return fyne.TextTruncateOff
}

func (l *tipLabel) MouseIn(ev *desktop.MouseEvent) {
	l.tip.in(l, ev, func() string {
		if l.hint != "" {
			return l.hint
		}
		if l.truncated() {
			return l.Text
		}
		return ""
	})
}
func (l *tipLabel) MouseMoved(*desktop.MouseEvent) {}
func (l *tipLabel) MouseOut()                      { l.tip.out() }
