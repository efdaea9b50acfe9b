package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Notes on the command line (contract 1.1): note, the notes of item and
// item --json, and what a flush did with the notes outbox. A note written
// offline waits in its own outbox and is sent once by 'reviewer flush'.

type noteJSON struct {
	ID        string    `json:"id,omitempty"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
	State     string    `json:"state"` // done, or queued/sending/unknown/failed on its way
}

func notesJSON(ns []store.NoteRow) []noteJSON {
	out := make([]noteJSON, 0, len(ns))
	for _, n := range ns {
		out = append(out, noteJSON{ID: n.RemoteID, Author: n.Author, Text: n.Text, CreatedAt: n.CreatedAt, State: string(n.State)})
	}
	return out
}

// reportNote prints a note's outcome and returns its exit status.
func (r *runner) reportNote(res review.NoteResult) (int, error) {
	n := res.Note
	switch n.State {
	case policy.ActionDone:
		fmt.Fprintf(r.env.Stdout, "note added to %s (%s)\n", show(n.ItemID), show(n.RemoteID))
		return ExitOK, nil
	case policy.ActionQueued:
		return ExitQueued, fmt.Errorf("note on %s queued (key %s): %w; 'reviewer flush' sends it once", n.ItemID, n.Key, res.Err)
	case policy.ActionUnknown, policy.ActionSending:
		return ExitUnknown, fmt.Errorf("note on %s: outcome unknown (key %s): %w; 'reviewer flush' sends it again with the same key", n.ItemID, n.Key, res.Err)
	}
	err := res.Err
	if err == nil {
		err = errors.New(n.LastError)
	}
	return exitFor(err), fmt.Errorf("note on %s refused by the API: %w", n.ItemID, err)
}

// notesSummary is what a flush did with the notes outbox, if anything:
// the notes it sent and what they came to, and the notes it did not send
// because the API is rate limiting, which are still to go.
func notesSummary(fr review.FlushResult) string {
	line := ""
	if len(fr.Notes) > 0 {
		count := map[policy.ActionState]int{}
		for _, n := range fr.Notes {
			count[n.Note.State]++
		}
		line = fmt.Sprintf("; %d notes: %d added, %d refused, %d unknown, %d still queued", len(fr.Notes),
			count[policy.ActionDone], count[policy.ActionFailed], count[policy.ActionUnknown]+count[policy.ActionSending], count[policy.ActionQueued])
	}
	if n := len(fr.NotesWaiting); n > 0 {
		queued := 0
		for _, w := range fr.NotesWaiting {
			if w.State == policy.ActionQueued {
				queued++
			}
		}
		what := plural(n, "note still queued", "notes still queued")
		if queued < n {
			what = fmt.Sprintf("%s not sent (%d still queued, %d unknown, reconciled with the same key then)", plural(n, "note", "notes"), queued, n-queued)
		}
		line += fmt.Sprintf("; %s: the API is rate limiting until %s; run 'reviewer flush' after then", what, fr.NotesUntil.Local().Format("15:04:05"))
	}
	return line
}

// notesLeft counts the notes a flush leaves to do, by what they wait for.
type notesLeft struct{ queued, unknown, refused int }

// noteCounts is what the notes of a flush left: sent and back to queued
// (or never sent: the API is rate limiting), sent with no answer for
// their key, refused.
func noteCounts(fr review.FlushResult) notesLeft {
	var c notesLeft
	for _, n := range fr.Notes {
		switch n.Note.State {
		case policy.ActionQueued:
			c.queued++
		case policy.ActionUnknown, policy.ActionSending:
			c.unknown++
		case policy.ActionFailed:
			c.refused++
		}
	}
	for _, n := range fr.NotesWaiting {
		if n.State == policy.ActionQueued {
			c.queued++
		} else {
			c.unknown++
		}
	}
	return c
}
