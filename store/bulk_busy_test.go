package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// A writer of another process that meets the cache busy waits within its
// bound, then says so in words: CACHE_BUSY, nothing written, never the
// driver's "database is locked" as an internal error.
func TestABusyCacheIsCacheBusyInWords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fillErrors(t, db, 10)
	raw, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	holder, err := raw.Begin() // another process's long write
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	other, err := store.Open(path, store.BusyTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.Notes.CreateNote(context.Background(), store.NoteRow{ItemID: "b000000_0", Key: "note-1", Author: "ben", Text: "seen"})
	if !store.IsBusy(err) || policy.ErrorCode(err) != policy.CodeCacheBusy {
		t.Fatalf("a write into a busy cache: %v (code %s), want CACHE_BUSY", err, policy.ErrorCode(err))
	}
	if msg := err.Error(); strings.Contains(msg, "database is locked") || !strings.Contains(msg, "nothing was written") {
		t.Fatalf("not in words: %q", msg)
	}
	holder.Rollback()
	if notes, err := other.Notes.ItemNotes(context.Background(), "b000000_0"); err != nil || len(notes) != 0 {
		t.Fatalf("the refused note was kept: %d %v", len(notes), err)
	}
}

// Confirming a large bulk run writes in chunks: a note of another process,
// which waits at most one second for the lock, gets in while the run is
// still being queued (it used to wait out the whole run and fail with
// "database is locked"), and the run still ends with one action per item.
func TestAWriterGetsInWhileABulkRunIsConfirmed(t *testing.T) {
	const n = 30000
	path := filepath.Join(t.TempDir(), "cache.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	acts := fillErrors(t, db, n)
	other, err := store.Open(path, store.BusyTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	raw, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	started := make(chan struct{})
	var once sync.Once
	check := func(sit policy.Situation) error {
		once.Do(func() { close(started) }) // inside the confirmation's first transaction
		return policy.CanResubmit(sit)
	}
	type result struct {
		created, refused int
		err              error
	}
	done := make(chan result, 1)
	go func() {
		_, created, refused, err := db.Runs.CreateRun(context.Background(), policy.ActionResubmit, "ana", acts, check)
		done <- result{len(created), len(refused), err}
	}()
	<-started
	waitFrom := time.Now()
	note, err := other.Notes.CreateNote(context.Background(), store.NoteRow{ItemID: "b000000_0", Key: "note-1", Author: "ben", Text: "seen"})
	waited := time.Since(waitFrom)
	if err != nil {
		t.Fatalf("a note during the confirmation: %v (code %s)", err, policy.ErrorCode(err))
	}
	var queued int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM bulk_run_actions`).Scan(&queued); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil || res.created != n || res.refused != 0 {
		t.Fatalf("the run: %d queued, %d left out: %v", res.created, res.refused, res.err)
	}
	if queued >= n {
		t.Fatalf("the note got in only after the run (%d of %d queued): the test proves nothing; raise n", queued, n)
	}
	t.Logf("the note (%d) got in after %v, with %d of %d actions queued", note.ID, waited.Round(time.Millisecond), queued, n)
	var actions, items, open int
	raw.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT item_id), SUM(state = 'queued') FROM actions`).Scan(&actions, &items, &open)
	if actions != n || items != n || open != n {
		t.Fatalf("%d actions on %d items, %d queued; want %d of each", actions, items, open, n)
	}
}

// A confirmation stopped part-way (Ctrl-C) keeps what it queued, each
// action with its key, and says how many and how to send or withdraw them.
func TestAStoppedConfirmationKeepsWhatItQueued(t *testing.T) {
	db, acts := errorCache(t, 20000)
	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	check := func(sit policy.Situation) error {
		if calls++; calls == 6000 {
			cancel() // the reviewer stops it after its first chunk (5,000 at most)
		}
		return policy.CanResubmit(sit)
	}
	run, created, _, err := db.Runs.CreateRun(ctx, policy.ActionResubmit, "ana", acts, check)
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancel-run") {
		t.Fatalf("a stopped confirmation: %v", err)
	}
	kept, err := db.Runs.RunActions(context.Background(), run.ID)
	if err != nil || len(kept) != len(created) || len(kept) == 0 || len(kept) == len(acts) {
		t.Fatalf("%d kept, %d reported queued, of %d: %v", len(kept), len(created), len(acts), err)
	}
}
