package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/internal/safetext"
)

// Text from outside (the service's names, notes, customer references, file
// names, codes and messages, error texts, a file's name) is drawn by one
// rule, the command line's (internal/safetext), in two steps:
//
//   - each value from outside is put through shown (or shownLong, for a
//     note or a message) where it is written into the console's words: one
//     line, control, bidi and invisible characters escaped, a long value
//     cut, as on the terminal;
//   - every text a widget of this package draws passes drawn
//     (safetext.Window) on its way in: the labels are textLabels, the cells
//     and tooltips tipLabels, the buttons tipButtons, and the dialogs'
//     titles, the notifications and the batch list's rich text go through
//     it too. A value that missed the first step still cannot reorder,
//     hide or control what the window shows.
//
// TestOutsideTextHasOneDoor (text_test.go) holds the package to the
// second step: no widget.Label, no label built by Fyne's constructors, no
// raw dialog or notification outside this file.

// shown makes a value from outside (an id, a file name, a customer
// reference, a reviewer's name, a code) safe to write into a line: control
// and bidi characters escaped, one line, a long value cut. A file named
// "gpj.exe" with a right-to-left override reads as what it is.
func shown(s string) string { return safetext.Line(s, safetext.Value) }

// shownLong is shown for a longer value: a note, a message, an error's
// text.
func shownLong(s string) string { return safetext.Line(s, safetext.Message) }

// drawn is the gate in front of every widget: what it draws holds no
// control character but the newline, no bidi control, nothing invisible.
func drawn(s string) string { return safetext.Window(s) }

// textLabel is the window's label: its text passes drawn whichever way it
// is set (its constructor, SetText). One that wraps at words breaks its
// own lines (lines.go); Text keeps its words as they were set.
type textLabel struct {
	widget.Label
	ownLines bool // its renderer is a linesRenderer (set by CreateRenderer)
}

func newLabel(text string) *textLabel {
	l := &textLabel{}
	l.Text = drawn(text)
	l.ExtendBaseWidget(l)
	return l
}

func newLabelWithStyle(text string, align fyne.TextAlign, style fyne.TextStyle) *textLabel {
	l := &textLabel{}
	l.Text, l.Alignment, l.TextStyle = drawn(text), align, style
	l.ExtendBaseWidget(l)
	return l
}

// wrapped is a label that wraps at words.
func wrapped(text string) *textLabel {
	l := newLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// SetText draws text through the gate.
func (l *textLabel) SetText(text string) {
	if !l.ownLines {
		l.Label.SetText(drawn(text))
		return
	}
	l.Text = drawn(text)
	l.Refresh()
}

// setText sets a label's text when it changed: the panel is drawn again
// when an item's detail follows its row, mostly with the same words, and a
// wrapped label set anew lays its text and the panel out again.
func setText(l *textLabel, text string) { setLook(l, text, l.Importance) }

// setLook sets a label's words and colour, and redraws it, only when one
// of them changed: Fyne redraws the whole window for any label refreshed,
// same words or not (the strip, shown again every few seconds).
func setLook(l *textLabel, text string, look widget.Importance) {
	if drawn(text) == l.Text && look == l.Importance {
		return
	}
	l.Importance = look
	l.SetText(text)
}

// CreateRenderer is, for a label that wraps at words (and is not cut
// short), one that draws the lines it broke (lines.go); for any other,
// Fyne's label's. Which one it made decides how SetText and Refresh reach
// it.
func (l *textLabel) CreateRenderer() fyne.WidgetRenderer {
	l.ownLines = l.Wrapping == fyne.TextWrapWord && l.Truncation == fyne.TextTruncateOff
	if !l.ownLines {
		return l.Label.CreateRenderer()
	}
	return newLinesRenderer(l)
}

// Refresh draws the label again. Fyne's label refreshes only the renderer
// it made itself, which a wrapped label does not have.
func (l *textLabel) Refresh() {
	if !l.ownLines {
		l.Label.Refresh()
		return
	}
	l.BaseWidget.Refresh()
}

// richText is a rich text of the given segments, their text through the gate.
func richText(segs ...widget.RichTextSegment) *widget.RichText {
	return widget.NewRichText(safeSegments(segs)...)
}

// safeSegments passes the text of each text segment through the gate.
func safeSegments(segs []widget.RichTextSegment) []widget.RichTextSegment {
	for _, s := range segs {
		if t, ok := s.(*widget.TextSegment); ok {
			t.Text = drawn(t.Text)
		}
	}
	return segs
}

// showInformation shows a message in a dialog, its title and text through
// the gate.
func showInformation(title, message string, win fyne.Window) {
	dialog.ShowInformation(drawn(title), drawn(message), win)
}

// notification is a notification, its title and body through the gate.
func notification(title, body string) *fyne.Notification {
	return fyne.NewNotification(drawn(title), drawn(body))
}

// linesRenderer draws a wrapped textLabel: shown holds its lines, broken
// for the width it was laid out at.
type linesRenderer struct {
	l     *textLabel
	shown *widget.Label
	width float32 // the width the lines were broken for; 0 before the first layout
}

func newLinesRenderer(l *textLabel) *linesRenderer {
	r := &linesRenderer{l: l, shown: &widget.Label{}}
	r.shown.ExtendBaseWidget(r.shown)
	// A label laid out before has its width already: Fyne makes its
	// renderer again, with no layout, once it went a minute undrawn (its
	// renderer cache), and a resize to the same size lays nothing out.
	if s := l.Size(); s.Width > 0 {
		r.width = s.Width
		r.shown.Resize(s)
	}
	r.sync()
	return r
}

// sync gives shown the label's words, broken for the width, and its
// style; it refreshes shown only when something changed. Before the first
// layout the width is not known and Fyne wraps them.
func (r *linesRenderer) sync() {
	l, s := r.l, r.shown
	text, wrap := l.Text, fyne.TextWrapWord
	if r.width > 0 {
		th := l.Theme()
		size := th.Size(labelSizeName(l))
		text = breakLines(l.Text, r.width-2*th.Size(theme.SizeNameInnerPadding), size, l.TextStyle)
		wrap = fyne.TextWrapOff
	}
	if s.Text == text && s.Wrapping == wrap && s.Importance == l.Importance && s.TextStyle == l.TextStyle &&
		s.Alignment == l.Alignment && s.SizeName == l.SizeName {
		return
	}
	s.Text, s.Wrapping, s.Importance, s.TextStyle, s.Alignment, s.SizeName = text, wrap, l.Importance, l.TextStyle, l.Alignment, l.SizeName
	s.Refresh()
}

func labelSizeName(l *textLabel) fyne.ThemeSizeName {
	if l.SizeName != "" {
		return l.SizeName
	}
	return theme.SizeNameText
}

func (r *linesRenderer) Layout(size fyne.Size) {
	if size.Width != r.width {
		r.width = size.Width
		r.sync()
	}
	r.shown.Resize(size)
}

// MinSize is a wrapped label's, as Fyne gives it: the height of its lines
// and no width of its own, so that the label takes the width it is given
// and breaks its lines again when that changes.
func (r *linesRenderer) MinSize() fyne.Size {
	return fyne.NewSize(2*r.l.Theme().Size(theme.SizeNameInnerPadding), r.shown.MinSize().Height)
}

func (r *linesRenderer) Refresh()                     { r.sync() }
func (r *linesRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.shown} }
func (r *linesRenderer) Destroy()                     {}
