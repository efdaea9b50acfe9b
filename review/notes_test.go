package review_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

func TestNotesWrittenOfflineArriveOnce(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	tm.srv.Refuse()
	for _, text := range []string{"Customer called.", "New scan coming\non Monday."} {
		r, err := tm.ana.svc.Team.AddNote(ctx, id, text)
		if err != nil || r.Note.State != policy.ActionQueued || policy.ErrorCode(r.Err) != policy.CodeAPIUnreachable {
			t.Fatalf("%+v %v", r, err)
		}
	}
	// A note never blocks a paid action on the same item.
	res, err := tm.ana.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("a queued note blocked the re-submission: %+v %v", res, err)
	}
	if _, err := tm.ana.svc.Team.AddNote(ctx, id, "  \u0007 "); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a bad note: %v", err)
	}
	d, _ := tm.ana.svc.Triage.Item(ctx, id)
	if d.Notes != 2 || len(d.NoteRows) != 2 || d.NoteRows[0].Author != "ana" {
		t.Fatalf("notes in the cache: %+v", d.NoteRows)
	}
	if err := tm.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	fr, err := tm.ana.svc.Actions.Flush(ctx)
	if err != nil || fr.Done != 1 || len(fr.Notes) != 2 {
		t.Fatalf("%+v %v", fr, err)
	}
	for _, n := range fr.Notes {
		if n.Note.State != policy.ActionDone || n.Note.RemoteID == "" {
			t.Fatalf("%+v", n)
		}
	}
	if fr, _ := tm.ana.svc.Actions.Flush(ctx); len(fr.Notes) != 0 || len(tm.srv.Notes(id)) != 2 || tm.srv.Arrivals(screenapi.EPNote) != 2 {
		t.Fatalf("a second flush: %+v; the service has %d notes", fr, len(tm.srv.Notes(id)))
	}
	// Ben reads them after a sync, and ana's sync brings no duplicate.
	for _, c := range []*console{tm.ana, tm.ben} {
		if _, err := c.svc.Sync.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		d, _ := c.svc.Triage.Item(ctx, id)
		if len(d.NoteRows) != 2 || d.NoteRows[1].Text != "New scan coming\non Monday." || d.NoteRows[0].Author != "ana" {
			t.Fatalf("notes %+v", d.NoteRows)
		}
	}
}

func TestANoteWhoseAnswerWasLostIsSentOnce(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("DECODE_FAILED")
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPNote, Times: 1})
	r, err := tm.ben.svc.Team.AddNote(ctx, id, "Customer called.")
	if err != nil || r.Note.State != policy.ActionUnknown {
		t.Fatalf("%+v %v", r, err)
	}
	// A sync brings the note before the reconciliation does.
	if _, err := tm.ben.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fr, err := tm.ben.svc.Actions.Flush(ctx)
	if err != nil || len(fr.Notes) != 1 || fr.Notes[0].Note.State != policy.ActionDone {
		t.Fatalf("%+v %v", fr, err)
	}
	d, _ := tm.ben.svc.Triage.Item(ctx, id)
	if len(tm.srv.Notes(id)) != 1 || len(d.NoteRows) != 1 || d.NoteRows[0].Key != r.Note.Key {
		t.Fatalf("service %d notes, cache %+v", len(tm.srv.Notes(id)), d.NoteRows)
	}
}

func TestANoteKilledDuringItsSendArrivesOnce(t *testing.T) {
	tm := setupTeam(t, "")
	id := tm.srv.FindCode("CLASSIFIER_UNAVAILABLE")
	// The service makes the note, then never answers: the process dies
	// while its request is out.
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultHangAfter, Endpoint: screenapi.EPNote, Times: 1})
	tm.ana.close()
	cmd := teamHelper(tm, tm.ana, anaTok, "team-note", id, time.Now())
	cmd.Env = append(cmd.Env, "REVIEW_CLIENT_TIMEOUT=60s")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for len(tm.srv.Notes(id)) == 0 {
		select {
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("the note never reached the service")
		case <-time.After(5 * time.Millisecond):
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	if err := cmd.Wait(); err == nil {
		t.Fatal("the helper was not killed")
	}
	// Restart: the note is still "sending" under a lease that a later flush
	// finds run out.
	later := func() time.Time { return time.Now().Add(time.Hour) }
	again := openConsole(t, tm.srv.URL(), anaTok, tm.ana.path, later)
	defer again.close()
	fr, err := again.svc.Actions.Flush(context.Background())
	if err != nil || len(fr.Notes) != 1 || fr.Notes[0].Note.State != policy.ActionDone || fr.Notes[0].Note.Sends != 2 {
		t.Fatalf("%+v %v", fr, err)
	}
	if n := tm.srv.Notes(id); len(n) != 1 || n[0].Author != "ana" {
		t.Fatalf("service notes %+v", n)
	}
}

func TestOwnNoteDoesNotTurnOwnActionIntoItemChanged(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("SOURCE_UNREACHABLE")
	if r, err := tm.ana.svc.Team.AddNote(ctx, id, "Retrying after the storage outage."); err != nil || r.Note.State != policy.ActionDone {
		t.Fatalf("%+v %v", r, err)
	}
	res, err := tm.ana.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionDone || tm.srv.Analyses(id) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestNotesReachTheAuditAndTheExport(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("DECODE_FAILED")
	if _, err := tm.ben.svc.Team.AddNote(ctx, id, "=HYPERLINK(\"x\") is what the customer typed"); err != nil {
		t.Fatal(err)
	}
	d, _ := tm.ben.svc.Triage.Item(ctx, id)
	events := map[string]bool{}
	for _, e := range d.Audit {
		events[e.Event] = events[e.Event] || e.Reviewer == "ben"
	}
	if !events["note written"] || !events["note added"] {
		t.Fatalf("audit %+v", d.Audit)
	}
	var buf bytes.Buffer
	if _, err := tm.ben.svc.Triage.ExportCSV(ctx, &buf, d.BatchID); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], "notes") // the decision's columns (1.2) follow it
	if col < 0 {
		t.Fatalf("no notes column in %q", recs[0])
	}
	for _, r := range recs[1:] {
		if r[2] == id {
			if cell := r[col]; !strings.HasPrefix(cell, "ben (") || !strings.Contains(cell, "is what the customer typed") {
				t.Fatalf("notes cell %q", cell)
			}
			return
		}
	}
	t.Fatal("item not exported")
}

// A note turned away on its first send (429) is no verdict and nothing ran:
// it goes back to queued, as policy's note machine says, and the next
// flush sends it once with the same key.
func TestANoteTurnedAwayIsSentByTheNextFlush(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPNote, RetryAfter: "1", Times: 1})
	r, err := tm.ana.svc.Team.AddNote(ctx, id, "Customer called.")
	if err != nil || r.Note.State != policy.ActionQueued || r.Err == nil || len(tm.srv.Notes(id)) != 0 {
		t.Fatalf("%+v %v", r, err)
	}
	fr, err := tm.ana.svc.Actions.Flush(ctx)
	if err != nil || len(fr.Notes) != 1 || fr.Notes[0].Note.State != policy.ActionDone || fr.Notes[0].Note.Key != r.Note.Key {
		t.Fatalf("%+v %v", fr, err)
	}
	if n := tm.srv.Notes(id); len(n) != 1 {
		t.Fatalf("service notes %+v", n)
	}
}

// A note whose sender held it past its lease, and that another process took
// over meanwhile, is that process's to finish: the sender keeps the
// evidence of its send, says the outcome is unknown to it, and its flush
// goes on to the next note, as it does past a fenced action.
func TestAFencedNoteKeepsItsEvidenceAndTheFlushGoesOn(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	tm.srv.Refuse()
	var written []int64
	for _, text := range []string{"First.", "Second."} {
		r, err := tm.ana.svc.Team.AddNote(ctx, id, text)
		if err != nil || r.Note.State != policy.ActionQueued {
			t.Fatalf("%+v %v", r, err)
		}
		written = append(written, r.Note.ID)
	}
	if err := tm.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	// Another process, an hour on, finds the first note's lease run out
	// while this one's call is out, and takes it over.
	later := func() time.Time { return tm.clk.Now().Add(time.Hour) }
	other := openConsole(t, tm.srv.URL(), anaTok, tm.ana.path, later)
	defer other.close()
	var taken store.NoteRow
	tm.ana.svc.SetAfterNoteCall(func(n store.NoteRow) {
		if n.ID != written[0] || taken.ID != 0 {
			return
		}
		var ok bool
		var err error
		if taken, ok, err = other.db.Notes.LeaseNote(ctx, n.ID, time.Minute); err != nil || !ok || taken.State != policy.ActionUnknown {
			t.Errorf("take-over %+v %v %v", taken, ok, err)
		}
	})
	fr, err := tm.ana.svc.Actions.Flush(ctx)
	if err != nil || len(fr.Notes) != 2 {
		t.Fatalf("the flush stopped at the fenced note: %+v %v", fr, err)
	}
	if first := fr.Notes[0]; !errors.Is(first.Err, store.ErrFenced) || policy.ErrorCode(first.Err) != policy.CodeOutcomeUnknown || first.Note.State != policy.ActionUnknown {
		t.Fatalf("the fenced note: %+v", first)
	}
	if second := fr.Notes[1]; second.Err != nil || second.Note.State != policy.ActionDone {
		t.Fatalf("the note after it: %+v", second)
	}
	d, err := tm.ana.svc.Triage.Item(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sends := 0
	for _, a := range d.Attempts {
		if a.Operation == "note" && a.HTTPStatus != 0 { // not the offline tries
			sends++
		}
	}
	if sends != 2 {
		t.Fatalf("%d note attempts kept, want both sends' evidence: %+v", sends, d.Attempts)
	}
	// The process that took it over reconciles it with the same key: the
	// service has each note once.
	tm.ana.svc.SetAfterNoteCall(nil)
	again := openConsole(t, tm.srv.URL(), anaTok, tm.ana.path, func() time.Time { return tm.clk.Now().Add(3 * time.Hour) })
	defer again.close()
	fr, err = again.svc.Actions.Flush(ctx)
	if err != nil || len(fr.Notes) != 1 || fr.Notes[0].Note.State != policy.ActionDone {
		t.Fatalf("%+v %v", fr, err)
	}
	if n := tm.srv.Notes(id); len(n) != 2 {
		t.Fatalf("service notes %+v", n)
	}
}

// During a rate-limit wait a flush sends no note either: it stays queued
// and goes out with the first flush after the wait.
func TestAFlushDuringARateLimitSendsNoNote(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	clk := &fakeClock{}
	setStoreClock(e.db, clk.Now)
	e.svc.SetClock(clk.Now)
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	e.srv.Refuse()
	if res, err := e.svc.Team.AddNote(ctx, id, "Customer called."); err != nil || res.Note.State != policy.ActionQueued {
		t.Fatalf("offline note: %+v %v", res, err)
	}
	e.srv.Accept()
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPResubmit, RetryAfter: "60", Times: 1})
	if res, err := e.svc.Actions.Resubmit(ctx, e.srv.FindCode("INTERNAL_ERROR")); err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("a 429: %+v %v", res.Action, err)
	}
	before := e.srv.Arrivals(screenapi.EPNote)
	if fr, err := e.svc.Actions.Flush(ctx); err != nil || len(fr.Notes) != 0 || e.srv.Arrivals(screenapi.EPNote) != before {
		t.Fatalf("a flush in the wait sent %d notes (%d arrivals): %v", len(fr.Notes), e.srv.Arrivals(screenapi.EPNote)-before, err)
	} else if len(fr.NotesWaiting) != 1 || fr.NotesWaiting[0].ItemID != id || !fr.WaitingUntil().Equal(fr.NotesUntil) || fr.NotesUntil.IsZero() {
		t.Fatalf("a flush in the wait must say the note waits: %+v until %v", fr.NotesWaiting, fr.NotesUntil)
	}
	clk.Add(61 * time.Second)
	if fr, err := e.svc.Actions.Flush(ctx); err != nil || len(fr.Notes) != 1 || fr.Notes[0].Note.State != policy.ActionDone || fr.Done != 1 {
		t.Fatalf("the flush after the wait: %+v %v", fr, err)
	}
}
