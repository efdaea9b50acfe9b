package ui

import (
	"strings"

	"fyne.io/fyne/v2/widget"
)

// wordEntry is a text field wrapped at words that keeps every character
// she types where she typed it: the note field and a dialog's message or
// comment are built on it.
type wordEntry struct {
	widget.Entry
	typed typedPlace
}

// TypedRune types r where the cursor is. Fyne's entry (v2.7.1) loses
// its place when a space ends a wrapped row: the place right after that
// space has no row and column of its own, the cursor is put back before
// the space, and the next letter goes in front of it ("anew passport
// scan… page "). So the entry remembers where the last rune it typed
// ended, with the text and the cursor it left: when the next rune comes
// with neither changed (she did not move) and Fyne's place is not that
// one, the rune goes where she typed it.
func (e *wordEntry) TypedRune(r rune) {
	if t := e.typed; t.valid && t.text == e.Text && t.row == e.CursorRow && t.col == e.CursorColumn &&
		t.at != e.CursorTextOffset() && e.SelectedText() == "" {
		rs := []rune(e.Text)
		if t.at <= len(rs) {
			text := string(rs[:t.at]) + string(r) + string(rs[t.at:])
			e.SetText(text)
			e.placeCursor(t.at + 1)
			e.remember(t.at + 1)
			return
		}
	}
	pos := e.CursorTextOffset()
	e.Entry.TypedRune(r)
	e.remember(pos + 1)
}

// typedPlace is where the last typed rune ended, with the text and the
// cursor it left (TypedRune).
type typedPlace struct {
	valid    bool
	at       int
	text     string
	row, col int
}

func (e *wordEntry) remember(at int) {
	e.typed = typedPlace{valid: true, at: at, text: e.Text, row: e.CursorRow, col: e.CursorColumn}
}

// placeCursor puts the cursor at the text offset off, when a row and a
// column lead there (a note has a few rows: trying each is cheap).
func (e *wordEntry) placeCursor(off int) {
	row, col := e.CursorRow, e.CursorColumn
	for r := 0; r <= strings.Count(e.Text, "\n")+len(e.Text); r++ {
		for c := 0; c <= len(e.Text); c++ {
			e.CursorRow, e.CursorColumn = r, c
			switch got := e.CursorTextOffset(); {
			case got == off:
				e.Refresh()
				return
			case got > off:
				c = len(e.Text) // on to the next row
			}
		}
	}
	e.CursorRow, e.CursorColumn = row, col
}
