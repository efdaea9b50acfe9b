package ui

import (
	"reflect"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/trustscreen/reviewer/review"
)

// windowHasFocus reads whether Fyne's test window has the input focus
// (its Show and RequestFocus give it; it keeps no other record).
func windowHasFocus(w fyne.Window) bool {
	return reflect.ValueOf(w).Elem().FieldByName("focused").Bool()
}

// The viewer closed by Esc gives the keys back to the main window: F1,
// the first key after, shows the sheet. Without a window manager nothing
// gave the main window the focus back, and the key went nowhere.
func TestTheFirstKeyAfterTheViewerClosedReachesTheMainWindow(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 600, 400, blue), review.DocumentVersion{})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"))
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	v := c.viewer
	if v == nil || !windowHasFocus(v.win) || windowHasFocus(c.win) {
		t.Fatal("v did not open the viewer with the focus")
	}
	c.apply(func() { pressOn(v.win, fyne.KeyEscape) })
	c.Settle()
	if c.viewer != nil {
		t.Fatal("Esc did not close the viewer")
	}
	if !windowHasFocus(c.win) {
		t.Fatal("the viewer closed and the main window did not get the focus back: the next key goes nowhere")
	}
	// A viewer replaced by another (v on another item) hands the focus on
	// to the new one, not back to the main window.
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	first := c.viewer
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	if c.viewer == first || !windowHasFocus(c.viewer.win) || windowHasFocus(c.win) {
		t.Fatal("a viewer replaced by another: the focus is not on the new one")
	}
}
