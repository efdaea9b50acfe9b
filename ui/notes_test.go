package ui

import (
	"strings"
	"testing"
	"time"

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
