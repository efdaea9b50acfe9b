package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// TestEveryFileOfTheCacheIsPrivate: the folder the console makes is 0700,
// the cache 0600, and so are the -wal and -shm SQLite makes beside it (it
// gives them the cache's mode), whatever the umask says.
func TestEveryFileOfTheCacheIsPrivate(t *testing.T) {
	old := syscall.Umask(0) // the loosest: nothing comes from the umask
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "new", "folder")
	path := filepath.Join(dir, "cache.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Sync.ApplyPage(context.Background(), []policy.Batch{batchOf("b1", t0, scored("i1", "b1", 5, t0))}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("folder %s: %v %v", d, fi.Mode(), err)
		}
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v, %v", p, fi.Mode(), err)
		}
	}
	if w, err := store.CheckPermissions(path); err != nil || len(w) != 0 {
		t.Fatalf("a cache the console made: warnings %q, %v", w, err)
	}
}

// TestWiderPermissionsAreSaidAndTightened: files others may read are made
// 0600 with a warning in words for each; the console's own folder is made
// 0700 again; a folder of the reviewer's that others may write is warned
// about and left as it is, unless it is sticky.
func TestWiderPermissionsAreSaidAndTightened(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	def, err := store.DefaultPath()
	if err != nil || !strings.HasPrefix(def, cfg) {
		t.Fatalf("default path %s: %v", def, err)
	}
	db, err := store.Open(def)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, p := range []string{def + "-wal", def + "-shm"} {
		if err := os.WriteFile(p, nil, 0o600); err != nil { // left by a crash
			t.Fatal(err)
		}
	}
	for _, p := range []string{def, def + "-wal", def + "-shm"} {
		os.Chmod(p, 0o644)
	}
	os.Chmod(filepath.Dir(def), 0o755)
	w, err := store.CheckPermissions(def)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 4 || !strings.Contains(w[0], "folder") || !strings.Contains(w[0], "made 0700") {
		t.Fatalf("warnings: %q", w)
	}
	for _, line := range w[1:] {
		if !strings.Contains(line, "was mode 0644 (others could read it): made 0600") {
			t.Fatalf("warning %q", line)
		}
	}
	if fi, _ := os.Stat(filepath.Dir(def)); fi.Mode().Perm() != 0o700 {
		t.Fatalf("own folder left %v", fi.Mode())
	}
	for _, p := range []string{def, def + "-wal", def + "-shm"} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s left %v", p, fi.Mode())
		}
	}
	if w, _ := store.CheckPermissions(def); len(w) != 0 {
		t.Fatalf("said again once fixed: %q", w)
	}
	// A folder of the reviewer's: others may write into it.
	hers := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(hers, 0o700)
	os.Chmod(hers, 0o777)
	w, err = store.CheckPermissions(filepath.Join(hers, "cache.db"))
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "others can put files in it") {
		t.Fatalf("a folder others may write: %q %v", w, err)
	}
	if fi, _ := os.Stat(hers); fi.Mode().Perm() != 0o777 {
		t.Fatalf("her folder was changed: %v", fi.Mode())
	}
	os.Chmod(hers, 0o777|os.ModeSticky)
	if w, _ := store.CheckPermissions(filepath.Join(hers, "cache.db")); len(w) != 0 {
		t.Fatalf("a sticky folder: %q", w)
	}
}

// TestAReadOnlyCopyIsMadePrivateNotWritable: a cache the reviewer keeps
// read-only (a copy of mode 0444) loses what others may do and keeps
// what she may not: 0400, not 0600, so that the console reads it as a
// cache it cannot write rather than writing into her copy.
func TestAReadOnlyCopyIsMadePrivateNotWritable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copy.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	w, err := store.CheckPermissions(path)
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "was mode 0444 (others could read it): made 0400") {
		t.Fatalf("warnings %q, %v", w, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o400 {
		t.Fatalf("%s left %v (%v)", path, fi.Mode(), err)
	}
}
