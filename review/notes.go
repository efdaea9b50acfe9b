package review

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Notes have their own outbox (store.NoteRow): exactly once by their own
// key, also offline, and never in the way of a paid action. A note carries
// no If-Match: it is not a decision on what the reviewer saw, and what a
// reviewer learnt must not be lost because the item moved on.

// NoteResult is a note that was written to the notes outbox.
type NoteResult struct {
	Note store.NoteRow
	Err  error // why it is not done yet (or failed): the client's error
}

// AddNote writes a note on an item and sends it. Offline it stays queued
// and a flush sends it, once, with its own key.
func (s *TeamService) AddNote(ctx context.Context, itemID, text string) (NoteResult, error) {
	t, err := policy.CheckNoteText(text)
	if err != nil {
		return NoteResult{}, policy.Errorf(policy.CodeInvalidInput, "%s", policy.ErrorMessage(err))
	}
	if err := s.notOfferedLocally("notes"); err != nil {
		return NoteResult{}, err
	}
	if err := sendable(itemID); err != nil {
		return NoteResult{}, err
	}
	n, err := s.db.Notes.CreateNote(ctx, store.NoteRow{ItemID: itemID, Key: s.newKey(), Author: s.who(), Text: t})
	if err != nil {
		return NoteResult{}, err
	}
	if f := s.team.afterNoteIntent; f != nil {
		f(n)
	}
	return s.sendNote(ctx, n.ID)
}

// flushNotes sends the notes outbox, oldest first, each with its key. A
// note another process took over is that process's to finish, as a
// fenced action is: it is reported (its error says so) and the flush goes
// on to the next note.
func (s *core) flushNotes(ctx context.Context, fr *FlushResult) error {
	until, err := s.db.Sync.RateLimitedUntil(ctx)
	if err != nil {
		return err
	}
	pending, err := s.db.Notes.PendingNotes(ctx)
	if err != nil {
		return err
	}
	if s.now().Before(until) {
		// The API asked us to wait (a 429's Retry-After): the notes stay
		// queued, and go out after the wait (AwaitRateLimit) or with the
		// first flush after it. The flush says they are still queued.
		fr.NotesWaiting, fr.NotesUntil = pending, until
		return nil
	}
	for _, n := range pending {
		if ctx.Err() != nil {
			break
		}
		r, err := s.sendNote(ctx, n.ID)
		if errors.Is(err, store.ErrFenced) {
			r.Err = err
		} else if err != nil {
			return err
		}
		fr.Notes = append(fr.Notes, r)
	}
	return nil
}

// notesCell is an item's notes in one CSV cell: "author (time): text",
// one per line, oldest first.
func notesCell(notes []store.NoteRow) string {
	var b strings.Builder
	for i, n := range notes {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s (%s): %s", n.Author, n.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), n.Text)
	}
	return b.String()
}
