package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// A note or a message typed into a field wrapped at words is sent as she
// typed it, at every width of the field: Fyne's entry put the letter after
// a space that ended a row in front of that space ("anew passport scan…
// page "), at 33 of 114 widths from 60 to 400 pixels.
func TestAWrappedFieldKeepsEverySpaceWhereSheTypedIt(t *testing.T) {
	test.NewTempApp(t)
	want := "The customer promised for monday a new passport scan of the whole page"
	fields := map[string]func() fyne.Focusable{
		"note":    func() fyne.Focusable { return newTextEntry(nil, 2, "") },
		"message": func() fyne.Focusable { return newDialogForm(nil, nil).multiLine(3) },
	}
	for name, field := range fields {
		for w := float32(60); w < 400; w += 3 {
			e := field()
			win := test.NewTempWindow(t, e.(fyne.CanvasObject))
			win.Resize(fyne.NewSize(w, 200))
			win.Canvas().Focus(e)
			for _, r := range want {
				e.TypedRune(r)
			}
			var got string
			switch f := e.(type) {
			case *textEntry:
				got = f.Text
			case *formEntry:
				got = f.Text
			}
			if got != want {
				t.Fatalf("%s at %v pixels: %q, typed %q", name, w, got, want)
			}
			// And she goes on where the cursor shows: the end.
			e.TypedRune('.')
			switch f := e.(type) {
			case *textEntry:
				got = f.Text
			case *formEntry:
				got = f.Text
			}
			if got != want+"." {
				t.Fatalf("%s at %v pixels: %q after a full stop", name, w, got)
			}
		}
	}
}

// A cursor she moved is where the next letter goes: the remembered place
// is only for the rune right after a rune.
func TestAWrappedFieldTypesWhereSheMovedTheCursor(t *testing.T) {
	test.NewTempApp(t)
	e := newTextEntry(nil, 2, "")
	win := test.NewTempWindow(t, e)
	win.Resize(fyne.NewSize(60, 200))
	for _, r := range "day a " {
		e.TypedRune(r)
	}
	e.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyHome})
	e.CursorRow, e.CursorColumn = 0, 0
	e.TypedRune('X')
	if e.Text != "Xday a " {
		t.Fatalf("%q", e.Text)
	}
}
