package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

func writeNote(t *testing.T, db *store.DB, key, text string) store.NoteRow {
	t.Helper()
	n, err := db.Notes.CreateNote(context.Background(), store.NoteRow{ItemID: "i1", Key: key, Author: "ana", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStoreFollowsTheNoteMachine puts a note in every state the table can
// hold and applies every event through the store's own methods: what the
// store writes, or refuses, is what policy.NoteTransition says, for every
// pair. A cancelled note is not kept: its row goes.
func TestStoreFollowsTheNoteMachine(t *testing.T) {
	ctx := context.Background()
	for _, from := range policy.NoteStates() {
		if !policy.NoteKept(from) {
			continue // no row is ever in it (TestSchemaFollowsTheNoteMachine)
		}
		for _, ev := range policy.ActionEvents() {
			t.Run(string(from)+"/"+string(ev), func(t *testing.T) {
				db := MustOpenDB(t)
				db.SetClock(func() time.Time { return t0 })
				seedOne(t, db, policy.CodeClassifierTimeout)
				n := writeNote(t, db, "k", "Customer called.")
				// The row as a lease holder (send 1) left it; a lease
				// finds the lease run out, a finish finds it held.
				lease := "NULL"
				if from.Open() && from != policy.ActionQueued {
					lease = fmt.Sprint(t0.Add(time.Minute).UnixMilli())
					if ev == policy.EventLease {
						lease = fmt.Sprint(t0.Add(-time.Second).UnixMilli())
					}
				}
				if err := db.Exec(ctx, fmt.Sprintf(`UPDATE notes SET state = '%s', sends = 1, lease_until = %s, remote_id = 'r1' WHERE id = %d`, from, lease, n.ID)); err != nil {
					t.Fatal(err)
				}
				var got store.NoteRow
				var err error
				switch ev {
				case policy.EventLease:
					var ok bool
					got, ok, err = db.Notes.LeaseNote(ctx, n.ID, time.Minute)
					if err == nil && !ok {
						err = fmt.Errorf("lease refused")
					}
				case policy.EventCancel:
					got, err = db.Notes.CancelNote(ctx, n.ID, "ana")
				default:
					f := store.NoteFinish{On: ev, Lease: 1, Event: string(ev)}
					if ev == policy.EventAnswered {
						f.Remote = &policy.Note{ID: "r1", Author: "ana", Text: n.Text, CreatedAt: t0}
					}
					got, err = db.Notes.FinishNote(ctx, n.ID, f)
				}
				stored := policy.ActionCancelled // the row is gone
				if ns, _ := db.Notes.ItemNotes(ctx, "i1"); len(ns) == 1 {
					stored = ns[0].State
				}
				want, allowed := policy.NoteTransition(from, ev)
				switch {
				case allowed && err != nil:
					t.Fatalf("the note machine allows %s in %s, the store refused: %v", ev, from, err)
				case allowed && (got.State != want || stored != want):
					t.Fatalf("%s --%s--> %s (stored %s), the note machine says %s", from, ev, got.State, stored, want)
				case !allowed && err == nil:
					t.Fatalf("the note machine refuses %s in %s, the store moved it to %s", ev, from, stored)
				case !allowed && stored != from:
					t.Fatalf("a refused %s moved %s to %s", ev, from, stored)
				}
			})
		}
	}
}

// A fenced sender of a note (its lease ran out and another sender took the
// note over) keeps the evidence of its attempts and says so in the audit,
// as a fenced action does; the note stays as the sender that took it over
// holds it.
func TestAFencedNoteKeepsItsEvidence(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	now := t0
	db.SetClock(func() time.Time { return now })
	seedOne(t, db, policy.CodeClassifierTimeout)
	n := writeNote(t, db, "k", "Customer called.")
	first, ok, err := db.Notes.LeaseNote(ctx, n.ID, time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	now = t0.Add(time.Hour) // the first sender stalled past its lease
	taken, ok, err := db.Notes.LeaseNote(ctx, n.ID, time.Minute)
	if err != nil || !ok || taken.State != policy.ActionUnknown || taken.Sends != 2 {
		t.Fatalf("take-over %+v %v %v", taken, ok, err)
	}
	att := policy.Attempt{Number: 1, Start: t0, Deadline: t0.Add(30 * time.Second), Elapsed: 31 * time.Second, Class: "timeout", Detail: "no answer"}
	got, err := db.Notes.FinishNote(ctx, n.ID, store.NoteFinish{On: policy.EventNoAnswer, Lease: first.Sends,
		ErrCode: policy.CodeOutcomeUnknown, Err: "no answer", Attempts: []policy.Attempt{att}, Event: "note unknown"})
	if !errors.Is(err, store.ErrFenced) || got.State != policy.ActionUnknown || got.Sends != 2 || got.LeaseUntil.IsZero() {
		t.Fatalf("a fenced finish: %+v %v", got, err)
	}
	as, err := db.Evidence.ItemAttempts(ctx, "i1")
	if err != nil || len(as) != 1 || as[0].Operation != "note" || as[0].Detail != "no answer" {
		t.Fatalf("the fenced sender's evidence: %+v %v", as, err)
	}
	au, _ := db.Evidence.ItemAudit(ctx, "i1")
	if len(au) == 0 || !strings.Contains(au[0].Event, "stale send") || !strings.Contains(au[0].Detail, "send 1") {
		t.Fatalf("audit %+v", au)
	}
	// The sender that took it over finishes it.
	done, err := db.Notes.FinishNote(ctx, n.ID, store.NoteFinish{On: policy.EventAnswered, Lease: taken.Sends,
		Remote: &policy.Note{ID: "r1", Author: "ana", Text: n.Text, CreatedAt: t0}, Event: "note added"})
	if err != nil || done.State != policy.ActionDone || done.RemoteID != "r1" {
		t.Fatalf("%+v %v", done, err)
	}
}

// A lease needs the lease free: a live lease refuses it in every state
// that allows a lease, and says until when.
func TestANoteLeaseRespectsALiveLease(t *testing.T) {
	ctx := context.Background()
	for _, from := range policy.NoteStatesAllowing(policy.EventLease) {
		t.Run(string(from), func(t *testing.T) {
			db := MustOpenDB(t)
			db.SetClock(func() time.Time { return t0 })
			seedOne(t, db, policy.CodeClassifierTimeout)
			n := writeNote(t, db, "k", "Customer called.")
			until := t0.Add(time.Second)
			if err := db.Exec(ctx, fmt.Sprintf(`UPDATE notes SET state = '%s', sends = 1, lease_until = %d WHERE id = %d`, from, until.UnixMilli(), n.ID)); err != nil {
				t.Fatal(err)
			}
			got, ok, err := db.Notes.LeaseNote(ctx, n.ID, time.Minute)
			if err != nil || ok || got.State != from || !got.LeaseUntil.Equal(until) || got.Sends != 1 {
				t.Fatalf("leased under a live lease: %+v %v %v", got, ok, err)
			}
			if ps, _ := db.Notes.PendingNotes(ctx); len(ps) != 0 {
				t.Fatalf("a note under a live lease is pending: %+v", ps)
			}
		})
	}
}

// The notes outbox: what a flush sends, what the outbox lists, what an item
// counts and the export shows, and a note a sync brought.
func TestTheNotesOutbox(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	now := t0
	db.SetClock(func() time.Time { return now })
	synced := failed("i1", "b1", policy.CodeClassifierTimeout, t0)
	synced.Notes = []policy.Note{{ID: "r0", Author: "ben", Text: "Called the branch.", CreatedAt: t0.Add(-time.Hour)}}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, synced)}); err != nil {
		t.Fatal(err)
	}
	queued := writeNote(t, db, "k1", "One")
	refused := writeNote(t, db, "k2", "Two")
	sent := writeNote(t, db, "k3", "Three")
	withdrawn := writeNote(t, db, "k4", "Four")
	if queued.State != policy.InitialNoteState {
		t.Fatalf("written %s", queued.State)
	}
	for _, n := range []store.NoteRow{refused, sent} {
		l, ok, err := db.Notes.LeaseNote(ctx, n.ID, time.Minute)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		f := store.NoteFinish{On: policy.EventRefused, Lease: l.Sends, ErrCode: policy.CodeValidationFailed, Err: "no", Event: "note failed"}
		if n.ID == sent.ID {
			f = store.NoteFinish{On: policy.EventAnswered, Lease: l.Sends, Remote: &policy.Note{ID: "r3", Author: "ana", Text: "Three", CreatedAt: t0}, Event: "note added"}
		}
		if _, err := db.Notes.FinishNote(ctx, n.ID, f); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := db.Notes.CancelNote(ctx, withdrawn.ID, "ana"); err != nil || c.State != policy.ActionCancelled {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := db.Notes.CancelNote(ctx, refused.ID, "ana"); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("a failed note cancelled: %v", err)
	}
	texts := func(ns []store.NoteRow) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.Text+":"+string(n.State))
		}
		return out
	}
	all, _ := db.Notes.ItemNotes(ctx, "i1")
	if got := texts(all); !slices.Equal(got, []string{"Called the branch.:" + string(policy.SyncedNoteState), "One:queued", "Two:failed", "Three:done"}) {
		t.Fatalf("item notes %v", got)
	}
	if p, _ := db.Notes.PendingNotes(ctx); !slices.Equal(texts(p), []string{"One:queued"}) {
		t.Fatalf("pending %v", texts(p))
	}
	if o, _ := db.Notes.OpenNotes(ctx); !slices.Equal(texts(o), []string{"One:queued"}) {
		t.Fatalf("outbox %v (a synced note is no one's to send)", texts(o))
	}
	if c, _ := db.Notes.NoteCounts(ctx); c["i1"] != 3 {
		t.Fatalf("counts %v: the failed note is not on the item", c)
	}
	if ex, _ := db.Notes.AllNotes(ctx); !slices.Equal(texts(ex["i1"]), []string{"Called the branch.:done", "One:queued", "Three:done"}) {
		t.Fatalf("export %v", texts(ex["i1"]))
	}
	// A note on its way, then taken while its lease is live: not pending,
	// still in the outbox and counted.
	l, ok, err := db.Notes.LeaseNote(ctx, queued.ID, time.Minute)
	if err != nil || !ok || l.State != policy.ActionSending {
		t.Fatal(ok, err)
	}
	if p, _ := db.Notes.PendingNotes(ctx); len(p) != 0 {
		t.Fatalf("pending under a live lease %v", texts(p))
	}
	if o, _ := db.Notes.OpenNotes(ctx); !slices.Equal(texts(o), []string{"One:sending"}) {
		t.Fatalf("outbox %v", texts(o))
	}
	// Turned away on its first send: back in the queue, never lost.
	back, err := db.Notes.FinishNote(ctx, queued.ID, store.NoteFinish{On: policy.EventTurnedAway, Lease: l.Sends, ErrCode: policy.CodeRateLimited, Err: "wait", Event: "note turned away"})
	if err != nil || back.State != policy.ActionQueued || back.LastErrorCode != policy.CodeRateLimited {
		t.Fatalf("%+v %v", back, err)
	}
	now = t0.Add(time.Hour)
	if p, _ := db.Notes.PendingNotes(ctx); !slices.Equal(texts(p), []string{"One:queued"}) {
		t.Fatalf("pending %v", texts(p))
	}
}
