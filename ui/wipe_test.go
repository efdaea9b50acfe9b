package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/trustscreen/reviewer/store"
)

// "Remove all local data" refuses while anything waits to be sent, naming
// it; otherwise it asks with the safe choice focused (Enter keeps), and
// only Tab then Enter asks the command line for the wipe and closes.
func TestRemoveAllLocalDataFromPreferences(t *testing.T) {
	wf := &fakeWorkflow{}
	asked := 0
	c := newTestConsoleWith(t, wf, Options{WipeAtExit: func() { asked++ }})
	closed := false
	c.closeWindow = func() { closed = true }
	open := func() {
		c.apply(c.onRemoveAllLocalData)
		c.Settle()
		if c.win.Canvas().Overlays().Top() == nil {
			t.Fatal("no dialog")
		}
	}
	// Preferences offer it.
	c.apply(func() { c.settings.show(c.win) })
	if findButton(c.win.Canvas().Overlays().Top(), "Remove all local data…") == nil && !strings.Contains(dialogTexts(c), "Local data") {
		t.Fatal("Preferences do not offer to remove all local data")
	}
	press(c, fyne.KeyEscape, 0)

	wf.mu.Lock()
	wf.status.Outbox = store.OutboxCount{Queued: 1, Notes: 2}
	wf.mu.Unlock()
	open()
	if txt := dialogTexts(c); !strings.Contains(txt, "1 queued action and 2 notes not sent yet: nothing was removed") {
		t.Fatalf("with unsent work: %q", txt)
	}
	press(c, fyne.KeyReturn, 0)
	if asked != 0 || closed {
		t.Fatal("removed with unsent work")
	}

	wf.mu.Lock()
	wf.status.Outbox = store.OutboxCount{}
	wf.mu.Unlock()
	open()
	if txt := dialogTexts(c); !strings.Contains(txt, "Nothing else in those folders is touched") {
		t.Fatalf("the question: %q", txt)
	}
	press(c, fyne.KeyReturn, 0) // the focus is on Keep
	if asked != 0 || closed || c.win.Canvas().Overlays().Top() != nil {
		t.Fatalf("Enter did not keep: asked %d, closed %v", asked, closed)
	}
	open()
	press(c, fyne.KeyTab, 0)
	press(c, fyne.KeyReturn, 0)
	c.Settle() // the window closes once its state is saved (quit)
	if asked != 1 || !closed {
		t.Fatalf("Tab, Enter: asked %d, closed %v", asked, closed)
	}
}
