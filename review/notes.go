package review

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/client"
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
func (s *Service) AddNote(ctx context.Context, itemID, text string) (NoteResult, error) {
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
	n, err := s.db.CreateNote(ctx, store.NoteRow{ItemID: itemID, Key: s.newKey(), Author: s.who(), Text: t})
	if err != nil {
		return NoteResult{}, err
	}
	if f := s.team.afterNoteIntent; f != nil {
		f(n)
	}
	return s.sendNote(ctx, n.ID)
}

func (s *Service) sendNote(ctx context.Context, id int64) (NoteResult, error) {
	n, ok, err := s.db.LeaseNote(ctx, id, s.lease())
	if err != nil || !ok {
		return NoteResult{Note: n}, err
	}
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	remote, attempts, callErr := s.api.AddNote(opCtx, n.ItemID, n.Key, n.Text)
	s.observe(callErr)
	if f := s.team.afterNoteCall; f != nil {
		f(n)
	}
	rctx, rcancel := recordCtx(ctx)
	defer rcancel()
	f := store.NoteFinish{On: policy.EventAnswered, Lease: n.Sends, Remote: &remote, Event: "note added", Attempts: attempts}
	if callErr != nil {
		o := outcome(nil, callErr)
		// What the note meets is the event an action would meet; where it
		// leads a note (turned away: back to queued) is policy's note
		// machine, applied by the store.
		f.On, f.Remote, f.ErrCode, f.Err, f.Event = o.On, nil, o.ErrCode, o.Err, "note "+o.Event
		if client.IsNotOffered(callErr) {
			s.setVersion(rctx, "1.0")
		}
		callErr = s.explainConflict(rctx, &f.Item, &f.Err, n.ItemID, 0, time.Time{}, callErr)
	}
	done, err := s.db.FinishNote(rctx, n.ID, f)
	if errors.Is(err, store.ErrFenced) {
		// This process held the note past its lease and another took it
		// over: the store kept this send's evidence, and the note (done
		// is as the other process holds it) is that process's to finish.
		return NoteResult{Note: done, Err: callErr}, &notRecorded{fenced: true, err: policy.Errorf(policy.CodeOutcomeUnknown,
			"the note on item %s was sent (key %s) but its outcome was not recorded: this process held it past its lease "+
				"and another process took it over; that process reconciles it with the same key, or 'reviewer flush' will", n.ItemID, n.Key)}
	}
	if err != nil {
		return NoteResult{}, err
	}
	if done.State == policy.ActionDone {
		// The note moved the item to a new revision that its answer does
		// not carry: read it, so the reviewer's next action does not meet
		// ITEM_CHANGED over their own note. Best effort; a sync does it too.
		if it, _, err := s.api.GetItem(opCtx, n.ItemID); err == nil && it.ID == n.ItemID {
			_ = s.applyAnswered(rctx, it, s.who(), "", "")
		}
	}
	return NoteResult{Note: done, Err: callErr}, nil
}

// flushNotes sends the notes outbox, oldest first, each with its key. A
// note another process took over is that process's to finish, as a
// fenced action is: it is reported (its error says so) and the flush goes
// on to the next note.
func (s *Service) flushNotes(ctx context.Context, fr *FlushResult) error {
	until, err := s.db.RateLimitedUntil(ctx)
	if err != nil {
		return err
	}
	pending, err := s.db.PendingNotes(ctx)
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
