package cli_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
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
	box, _ := db.Outbox.Outbox(ctx)
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

// fullDiskChild, in a child's environment, says that this test binary
// runs in a mount namespace of its own, where a test may mount a small
// file system and fill it (inMountNamespace).
const fullDiskChild = "REVIEWER_TEST_OWN_MOUNTS"

// inMountNamespace runs the test t in a child process of this test binary
// with a mount namespace of its own and reports true there; here it
// waits for the child, reports its result as t's, and returns false. What
// the child mounts goes with it.
func inMountNamespace(t *testing.T) bool {
	t.Helper()
	if os.Getenv(fullDiskChild) != "" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), fullDiskChild+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState == nil {
		t.Skipf("no mount namespace of its own here: %v", err)
	}
	t.Logf("in a mount namespace of its own:\n%s", out)
	switch {
	case err != nil:
		t.Fatalf("the test failed: %v", err)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skip("skipped there")
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatal("the test did not run there")
	}
	return false
}

// mountFull mounts a file system of size bytes at dir (in this process's
// own mount namespace) and returns a function that fills it until the
// system says ENOSPC.
func mountFull(t *testing.T, dir string, size int) func() {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "mode=0700,size="+strconv.Itoa(size)); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return func() {
		t.Helper()
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		block := make([]byte, 64<<10)
		for {
			if _, err := f.Write(block); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil || st.Bavail != 0 {
			t.Fatalf("the disk is not full: %d blocks free (%v)", st.Bavail, err)
		}
	}
}

// A cache on a full disk, no other process holding it open: SQLite cannot
// give a new connection's -shm its size (ENOSPC), so every command exited
// 8, the reading ones too. They show what it holds, with one line on
// stderr that says why it is read-only, and outbox --json saves the
// queued key; the writing commands refuse in words (DISK_FULL, free
// space), nothing reaches the service and no byte of the cache changes.
// The disk is a small tmpfs, mounted in a mount namespace of the test's
// own (a child process), made by a real sync and then filled.
func TestAFullDiskStillShowsWhatTheCacheHolds(t *testing.T) {
	if !inMountNamespace(t) {
		return
	}
	h := newHarness(t)
	dir := filepath.Join(h.dir, "full")
	fill := mountFull(t, dir, 16<<20)
	path := filepath.Join(dir, "cache.db")
	h.env["REVIEWER_DB"] = path
	h.want(0, "sync")
	id := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	api := h.env["REVIEWER_API_URL"]
	h.env["REVIEWER_API_URL"] = closedPort(t)
	h.want(5, "resubmit", id) // queued: the service cannot be reached
	h.env["REVIEWER_API_URL"] = api
	out, _ := h.want(0, "outbox", "--json")
	type queued struct {
		ItemID string `json:"item_id"`
		Key    string `json:"idempotency_key"`
	}
	var box []queued
	if err := json.Unmarshal([]byte(out), &box); err != nil || len(box) != 1 || box[0].ItemID != id || box[0].Key == "" {
		t.Fatalf("outbox: %v %s", err, out)
	}
	key := box[0].Key
	fill()
	before := sumFile(t, path)
	arrived := map[string]int{}
	for _, ep := range []string{screenapi.EPBatches, screenapi.EPResubmit, screenapi.EPNote} {
		arrived[ep] = h.srv.Arrivals(ep)
	}

	h.readsStillShow(t, "the cache at "+path+" is read-only while the disk that holds it is full", id, key,
		filepath.Join(h.dir, "items.csv")) // the export on another disk

	other := h.srv.FindCode("CLASSIFIER_UNAVAILABLE")
	for _, args := range [][]string{{"sync"}, {"flush"}, {"resubmit", other}, {"note", id, "checked the selfie"}, {"cancel", "1"}} {
		_, errs := h.want(8, args...)
		t.Logf("%v: %s", args, errs)
		for _, w := range []string{"DISK_FULL", "is full", path, "free space"} {
			if !strings.Contains(errs, w) {
				t.Fatalf("reviewer %s: stderr lacks %q: %s", strings.Join(args, " "), w, errs)
			}
		}
	}
	if after := sumFile(t, path); after != before {
		t.Fatal("the cache on the full disk changed")
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatalf("%s-wal holds %d bytes", path, fi.Size())
	}
	for ep, n := range arrived {
		if got := h.srv.Arrivals(ep); got != n {
			t.Fatalf("%d calls to %s from a cache on a full disk", got-n, ep)
		}
	}
}
