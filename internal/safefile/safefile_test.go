//go:build unix

package safefile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test if fn has not returned after d: the bugs these
// tests guard against are hangs (a FIFO blocks in openat for ever).
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
}

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "scan.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.fifo")
	os.Symlink(fifo, link)
	for path, kind := range map[string]string{fifo: "named pipe", link: "named pipe", dir: "directory", "/dev/zero": "character device", "/dev/null": "character device"} {
		within(t, 20*time.Second, func() {
			_, err := ReadFile(path, 10<<20)
			var nr *NotRegularError
			if !errors.As(err, &nr) || !bytes.Contains([]byte(nr.Error()), []byte(kind)) {
				t.Errorf("%s: %v, want a refusal naming %q", path, err, kind)
			}
		})
	}
}

func TestReadFileStopsAtTheLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, bytes.Repeat([]byte{1}, 101), 0o600)
	if _, err := ReadFile(p, 100); !errors.As(err, new(*TooLargeError)) {
		t.Fatalf("101 bytes through a limit of 100: %v", err)
	}
	if b, err := ReadFile(p, 101); err != nil || len(b) != 101 {
		t.Fatalf("at the limit: %d %v", len(b), err)
	}
	// A reader that never ends (what /dev/zero is) is cut at limit+1.
	n := 0
	r := io.TeeReader(endless{}, countWriter{&n})
	if _, err := readLimited(r, "endless", 1<<20); !errors.As(err, new(*TooLargeError)) || n > 1<<20+1+32*1024 {
		t.Fatalf("endless: %v after %d bytes", err, n)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type countWriter struct{ n *int }

func (c countWriter) Write(p []byte) (int, error) { *c.n += len(p); return len(p), nil }

func write(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.csv")
	if err := WriteNew(target, false, write("one")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	// An existing file is kept without force.
	if err := WriteNew(target, false, write("two")); !errors.As(err, new(*ExistsError)) {
		t.Fatalf("existing target: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "one" {
		t.Fatalf("overwritten: %q", b)
	}
	// With force it is replaced by a new file 0600, whatever its mode was.
	os.Chmod(target, 0o644)
	if err := WriteNew(target, true, write("three")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "three" {
		t.Fatalf("not replaced: %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode kept: %v", fi.Mode())
	}
	// A symbolic link is never followed, force or not.
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	link := filepath.Join(dir, "link.csv")
	os.Symlink(victim, link)
	for _, force := range []bool{false, true} {
		if err := WriteNew(link, force, write("evil")); !errors.As(err, new(*SymlinkError)) {
			t.Fatalf("symlink (force %v): %v", force, err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("the link's target was written: %q", b)
	}
	// A FIFO is refused before it is opened (opening it would block).
	fifo := filepath.Join(dir, "out.fifo")
	syscall.Mkfifo(fifo, 0o600)
	within(t, 20*time.Second, func() {
		if err := WriteNew(fifo, true, write("x")); !errors.As(err, new(*NotRegularError)) {
			t.Errorf("fifo: %v", err)
		}
	})
	// A failed write leaves no temporary file and no target.
	failed := filepath.Join(dir, "failed.csv")
	if err := WriteNew(failed, false, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Fatal("no error")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".tmp" || e.Name() == "failed.csv" {
			t.Fatalf("left behind: %s", e.Name())
		}
	}
}

// TestWriteNewIntoAMissingFolder: a target in a folder that does not exist
// is refused with the folder's name, before any work and never naming the
// temporary file the write would have gone through.
func TestWriteNewIntoAMissingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no-such-folder")
	target := filepath.Join(dir, "out.csv")
	for _, err := range []error{CheckTarget(target, false), CheckTarget(target, true), WriteNew(target, false, write("x"))} {
		var fe *FolderError
		if !errors.As(err, &fe) || fe.Dir != dir {
			t.Fatalf("missing folder: %v", err)
		}
		if !strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), ".tmp") || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("message: %v", err)
		}
	}
	// A file where the folder should be is not a folder.
	file := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(file, []byte("x"), 0o600)
	err := CheckTarget(filepath.Join(file, "out.csv"), false)
	var fe *FolderError
	if !errors.As(err, &fe) || fe.Dir != file || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("a file as the folder: %v", err)
	}
}
