package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

func TestNotesShowAndAreWrittenInThePanel(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "DECODE_FAILED"))
	wf.notes["itm_1"] = []store.NoteRow{{Author: "ben", Text: "Customer called, new scan coming.", State: policy.ActionDone, CreatedAt: time.Now()}}
	c := newTeamConsole(t, wf)
	if !strings.Contains(c.panel.team.notes.Text, "ben · ") || !strings.Contains(c.panel.team.notes.Text, "new scan coming") {
		t.Fatalf("notes %q", c.panel.team.notes.Text)
	}
	c.apply(func() { test.Type(c.panel.team.entry, "Scan received by post.") })
	c.apply(func() { test.Tap(c.panel.team.add) })
	c.Settle()
	if !contains(wf.Calls(), "note itm_1 Scan received by post.") || c.panel.team.entry.Text != "" {
		t.Fatalf("calls %v entry %q", wf.Calls(), c.panel.team.entry.Text)
	}
	if !strings.Contains(c.panel.team.notes.Text, "Scan received by post. (waiting to be sent)") ||
		!strings.Contains(c.panel.team.claim.Text, "sent once when the API answers") {
		t.Fatalf("notes %q claim %q", c.panel.team.notes.Text, c.panel.team.claim.Text)
	}
}

// A note from the keyboard: m puts the cursor in the note field, Tab
// leaves it (no tab character typed), Ctrl+Enter sends it, and the sheet
// lists m.
func TestANoteIsWrittenAndSentFromTheKeyboard(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "DECODE_FAILED"))
	c := newTeamConsole(t, wf)
	c.apply(func() { c.focusItems() })
	typeText(c, "m")
	if focused(c) != c.panel.team.entry {
		t.Fatalf("m: the focus is on %T, not the note", focused(c))
	}
	typeText(c, "Scan received")
	pressKey(c, fyne.KeyTab)
	if focused(c) == c.panel.team.entry || strings.Contains(c.panel.team.entry.Text, "\t") {
		t.Fatalf("Tab stayed in the note: focus %T, text %q", focused(c), c.panel.team.entry.Text)
	}
	c.apply(func() { c.win.Canvas().Focus(c.panel.team.entry) })
	pressShortcut(c, &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl})
	if !contains(wf.Calls(), "note itm_1 Scan received") || c.panel.team.entry.Text != "" {
		t.Fatalf("Ctrl+Enter did not send: calls %v, entry %q", wf.Calls(), c.panel.team.entry.Text)
	}
	listed := false
	for _, k := range windowKeys {
		listed = listed || (k.keys == "m" && strings.Contains(k.what, "note"))
	}
	if !listed {
		t.Fatal("the sheet does not list the note's key")
	}
}
