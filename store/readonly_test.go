package store_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// freeze makes p unwritable for this process, even as root: chattr +i
// (root ignores file modes, not the immutable flag), else chmod for a
// normal user. It is undone when the test ends.
func freeze(t *testing.T, p string) {
	t.Helper()
	if os.Geteuid() != 0 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, fi.Mode().Perm()&^0o222); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, fi.Mode().Perm()) })
		return
	}
	if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s immutable here (chattr +i: %v %s)", p, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
}

// cacheWithOutbox makes a closed cache at path with one queued action.
func cacheWithOutbox(t *testing.T, path string) store.Action {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	b := policy.Batch{ID: "bat_1", CustomerRef: "CUST-1", CreatedAt: t0, UpdatedAt: t0, Items: []policy.Item{{
		ID: "itm_1", BatchID: "bat_1", Kind: "selfie", FileName: "a.jpg", MediaType: "image/jpeg", SizeBytes: 1,
		Status: policy.StatusError, ErrorCode: policy.CodeClassifierTimeout, Attempt: 1, UpdatedAt: t0}}}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{b}); err != nil {
		t.Fatal(err)
	}
	a, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: "itm_1", Kind: policy.ActionResubmit, Key: "key-ro-1", Reviewer: "ana"}, nil, func(policy.Situation) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func wantReadOnly(t *testing.T, err error, names string) {
	t.Helper()
	ce := store.AsCacheError(err)
	if ce == nil || ce.Problem != store.ProblemReadOnly || ce.ConsoleCode() != policy.CodeCacheReadOnly {
		t.Fatalf("want a read-only cache error, got %v", err)
	}
	for _, w := range []string{"cannot be written", names, "reading commands", "REVIEWER_DB"} {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("the message lacks %q: %v", w, err)
		}
	}
}

// A cache this process cannot write (its folder, or the file itself) is
// refused by Open in words that name what cannot be written, and is read
// in full with the ReadOnly option; a write through that handle says why
// not. (As root the test freezes with chattr +i, which root does not
// ignore; as a user, with file modes.)
func TestAReadOnlyCacheIsReadAndWritesSayWhyNot(t *testing.T) {
	for _, what := range []string{"folder", "file"} {
		t.Run(what, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			path := filepath.Join(dir, "cache.db")
			want := cacheWithOutbox(t, path)
			for _, p := range []string{path + "-wal", path + "-shm"} {
				if _, err := os.Stat(p); err == nil {
					t.Fatalf("%s left after a clean close", p)
				}
			}
			frozen, names := dir, "its folder "+dir
			if what == "file" {
				frozen, names = path, "the file "+path
			}
			freeze(t, frozen)

			_, err := store.Open(path)
			wantReadOnly(t, err, names)

			db, err := store.Open(path, store.ReadOnly())
			if err != nil {
				t.Fatalf("read-only open: %v", err)
			}
			defer db.Close()
			ctx := context.Background()
			box, err := db.Outbox.Outbox(ctx)
			if err != nil || len(box) != 1 || box[0].Key != want.Key {
				t.Fatalf("outbox of a read-only cache: %+v %v", box, err)
			}
			if _, err := db.Items.Item(ctx, "itm_1"); err != nil {
				t.Fatal(err)
			}
			err = db.Sync.SetLastSync(ctx, time.Now())
			if err == nil {
				t.Fatal("a write to a read-only cache succeeded")
			}
			wantReadOnly(t, store.Explain(path, err), "cannot be written")
		})
	}
}

// A read-only folder whose write-ahead log still holds changes cannot be
// read without them (SQLite needs a -shm beside the log, and cannot create
// one there): refused in words, never read as an older outbox.
func TestAReadOnlyFolderWithALiveLogIsRefusedNotReadStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	cacheWithOutbox(t, path)
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Sync.SetLastSync(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	// The cache and its log copied while in use (a backup), without -shm.
	dir := filepath.Join(t.TempDir(), "copy")
	os.Mkdir(dir, 0o700)
	copied := filepath.Join(dir, "cache.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(b) == 0 {
			t.Fatal("the log is empty")
		}
		if err := os.WriteFile(copied+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	freeze(t, dir)
	_, err = store.Open(copied, store.ReadOnly())
	wantReadOnly(t, err, "write-ahead log")
}
