package cli_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// fillDisk makes every later write of this process to the cache's
// write-ahead log fail as a full disk does (ENOSPC, from /dev/full), after
// moving everything the log holds into the database file, so that reads
// still find every page.
func fillDisk(t *testing.T, dbPath string) {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	var busy, logged, moved int
	err = raw.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved)
	raw.Close()
	if err != nil || busy != 0 {
		t.Fatalf("checkpoint: busy %d: %v", busy, err)
	}
	full, err := os.OpenFile("/dev/full", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	wal := dbPath + "-wal"
	fds, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, e := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil || target != wal {
			continue
		}
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if err := syscall.Dup3(int(full.Fd()), fd, syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("the console holds no descriptor of %s", wal)
	}
}

// TestDiskFullAfterTheCallSaysItWasSent: the disk
// fills up between the service's answer to a re-submission and its
// recording. The console says that the paid request was sent and how it
// will be reconciled (exit 4), and a flush after the lease does reconcile
// it with the same key, without a second analysis.
func TestDiskFullAfterTheCallSaysItWasSent(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	g := newGate(t, h.srv.URL())
	h.env["REVIEWER_API_URL"] = g.URL
	dbPath, err := filepath.EvalSymlinks(h.env["REVIEWER_DB"])
	if err != nil {
		t.Fatal(err)
	}
	id := h.srv.FindCode("CLASSIFIER_UNAVAILABLE")
	g.onAnswer(func() { fillDisk(t, dbPath) })
	_, errs := h.want(4, "resubmit", id)
	t.Logf("stderr: %s", errs)
	for _, w := range []string{"OUTCOME_UNKNOWN", "re-submission of item " + id + " was sent", "database or disk is full", "reviewer flush", "same key"} {
		if !strings.Contains(errs, w) {
			t.Fatalf("stderr lacks %q: %s", w, errs)
		}
	}

	raw, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var integrity string
	raw.QueryRow(`PRAGMA integrity_check`).Scan(&integrity)
	raw.Close()
	if integrity != "ok" {
		t.Fatalf("integrity_check: %s", integrity)
	}
	db, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	box, _ := db.Outbox(ctx)
	if len(box) != 1 || box[0].State != "sending" || box[0].Sends != 1 {
		t.Fatalf("outbox after the full disk: %+v", box)
	}
	// After the lease: another flush takes it over and reconciles it.
	fr, err := h.takeOver(t, time.Hour)
	if err != nil || fr.Done != 1 || fr.Results[0].Action.Key != box[0].Key {
		t.Fatalf("%+v %v", fr, err)
	}
	if h.srv.Analyses(id) != 1 || h.srv.Arrivals(screenapi.EPResubmit) != 2 {
		t.Fatalf("%d paid analyses, %d arrivals", h.srv.Analyses(id), h.srv.Arrivals(screenapi.EPResubmit))
	}
}
