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

// notesSummary is what a flush did with the notes outbox, if anything.
func notesSummary(fr review.FlushResult) string {
	if len(fr.Notes) == 0 {
		return ""
	}
	count := map[policy.ActionState]int{}
	for _, n := range fr.Notes {
		count[n.Note.State]++
	}
	return fmt.Sprintf("; %d notes: %d added, %d refused, %d unknown, %d still queued", len(fr.Notes),
		count[policy.ActionDone], count[policy.ActionFailed], count[policy.ActionUnknown], count[policy.ActionQueued])
}
