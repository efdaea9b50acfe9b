package ui

import (
	"context"
	"fmt"
	"strings"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Notes (contract 1.1) in the window: they show in the item panel and are
// written there, also offline (the note waits in the outbox).

func notesText(ns []store.NoteRow) string {
	if len(ns) == 0 {
		return "No notes."
	}
	var b strings.Builder
	for i, n := range ns {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s · %s: %s", shown(n.Author), n.CreatedAt.Local().Format("Jan 2 15:04"), shownLong(n.Text))
		switch n.State {
		case policy.ActionDone:
		case policy.ActionFailed:
			fmt.Fprintf(&b, " (refused: %s)", shown(string(n.LastErrorCode)))
		default:
			b.WriteString(" (waiting to be sent)")
		}
	}
	return b.String()
}

// ownNoteWaits reports whether a note of the reviewer's waits in the
// outbox: the panel says so while it does, and no longer once it is sent.
func ownNoteWaits(ns []store.NoteRow, me string) bool {
	for _, n := range ns {
		if n.Author == me && n.State.Open() {
			return true
		}
	}
	return false
}

// focusNote puts the cursor in the open item's note field (m): a note
// from the keyboard, sent by Ctrl+Enter.
func (c *Console) focusNote() {
	e := c.panel.team.entry
	if c.win.Canvas().Overlays().Top() != nil || !e.Visible() || !c.panel.team.content.Visible() || e.Disabled() {
		return
	}
	c.win.Canvas().Focus(e)
}

// onAddNote sends the note in the entry (queued when offline).
func (v *teamView) onAddNote() {
	tw := v.p.c.wf
	text := v.entry.Text
	id := v.p.itemID
	if id == "" || strings.TrimSpace(text) == "" {
		return
	}
	v.add.Disable()
	v.p.c.background(func(ctx context.Context) func() {
		_, err := tw.Team.AddNote(ctx, id, text)
		return func() {
			v.add.Enable()
			if err != nil {
				v.p.setNote(id, err)
				v.p.render()
				return
			}
			v.entry.SetText("")
			v.p.c.focusItems() // the triage letters act on the items again, not in the note
			v.p.refresh()      // says whether it waits, from the cache (ownNoteWaits)
		}
	})
}
