//go:build unix

package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

// nobodyID is the user and group nobody.
const nobodyID = 65534

// asNobody makes h run every later command as a user whom file modes
// hold. Root, who runs these tests, ignores modes: as root, each command
// runs in a child process of this test binary (TestMain) as the user
// nobody (SysProcAttr.Credential), linked into h.dir; h.dir and the test's
// folder above it are opened to others so that nobody reaches the cache.
// Anyone else is held to modes already: the commands run here.
func asNobody(h *harness) {
	t := h.t
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	for _, d := range []string{filepath.Dir(h.dir), h.dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for d := filepath.Dir(filepath.Dir(h.dir)); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("the user nobody cannot reach %s (%v): set TMPDIR to a folder others may enter", d, err)
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	home := filepath.Join(h.dir, "nobody")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, nobodyID, nobodyID); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(h.dir, "reviewer.test")
	if err := os.Link(exe, bin); err != nil {
		copyFile(t, exe, bin)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	h.as = func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{asChildEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "TMPDIR=" + home}
		for k, v := range h.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyID, Gid: nobodyID}}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return exit.ExitCode(), out.String(), errb.String()
		case err != nil:
			t.Fatalf("reviewer %s as nobody: %v", strings.Join(args, " "), err)
		}
		return 0, out.String(), errb.String()
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// folderBytes is what dir holds: each file's name and the SHA-256 of its
// bytes.
func folderBytes(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		lines = append(lines, e.Name()+" "+sumFile(t, filepath.Join(dir, e.Name())))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// A cache that can only be read (a read-only copy, a snapshot, another
// user's cache): its folder 0555 and its file 0444, no -wal beside it,
// used by a user whom the modes hold. SQLite cannot create the -wal there
// (SQLITE_READONLY_DIRECTORY, where an immutable folder gave CANTOPEN), so
// it is read as immutable. items, item, outbox and export show what it
// holds, with one line on stderr that says so, and outbox --json saves the
// queued key; the writing commands refuse in words (exit 8), nothing
// reaches the service and no byte in the folder changes.
func TestACacheThatCanOnlyBeReadShowsWhatItHolds(t *testing.T) {
	h := newHarness(t)
	dir := filepath.Join(h.dir, "ro")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cache.db")
	h.env["REVIEWER_DB"] = path
	h.want(0, "sync") // a real cache, made by a real sync
	id := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	api := h.env["REVIEWER_API_URL"]
	h.env["REVIEWER_API_URL"] = closedPort(t)
	h.want(5, "resubmit", id) // queued: the service cannot be reached
	h.env["REVIEWER_API_URL"] = api
	type queued struct {
		ItemID string `json:"item_id"`
		Key    string `json:"idempotency_key"`
	}
	var box []queued
	out, _ := h.want(0, "outbox", "--json")
	if err := json.Unmarshal([]byte(out), &box); err != nil || len(box) != 1 || box[0].ItemID != id || box[0].Key == "" {
		t.Fatalf("outbox: %v %s", err, out)
	}
	key := box[0].Key
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s left after the commands ended", p)
		}
	}
	exports := filepath.Join(h.dir, "exports")
	if err := os.Mkdir(exports, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(exports, 0o777); err != nil {
		t.Fatal(err)
	}

	before := readOnlyAsNobody(t, h, dir, path)
	arrived := map[string]int{}
	for _, ep := range []string{screenapi.EPBatches, screenapi.EPResubmit, screenapi.EPNote} {
		arrived[ep] = h.srv.Arrivals(ep)
	}

	h.readsStillShow(t, "the cache at "+path+" is read-only", id, key, filepath.Join(exports, "items.csv"))

	other := h.srv.FindCode("CLASSIFIER_UNAVAILABLE")
	for _, args := range [][]string{{"sync"}, {"flush"}, {"resubmit", other}, {"note", id, "checked the selfie"}, {"cancel", "1"}} {
		_, errs := h.want(8, args...)
		if !strings.HasPrefix(errs, "reviewer: CACHE_READ_ONLY: the cache "+path+" cannot be written: ") {
			t.Fatalf("reviewer %s: stderr does not begin with what cannot be written: %s", strings.Join(args, " "), errs)
		}
		for _, w := range []string{"CACHE_READ_ONLY", "cannot be written", path, "reading commands", "REVIEWER_DB"} {
			if !strings.Contains(errs, w) {
				t.Fatalf("reviewer %s: stderr lacks %q: %s", strings.Join(args, " "), w, errs)
			}
		}
	}
	if after := folderBytes(t, dir); after != before {
		t.Fatalf("the read-only folder changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	for ep, n := range arrived {
		if got := h.srv.Arrivals(ep); got != n {
			t.Fatalf("%d calls to %s from a read-only cache", got-n, ep)
		}
	}
}

// A damaged cache that can only be read (its folder 0555, its file 0444,
// used by a user whom the modes hold): outbox --json still reads the
// unsent action and its key from it (store.Salvage), as from a damaged
// cache she can write, and says so in one line: the damage, not also
// that the cache is read-only. The file stays as it was.
func TestADamagedCacheThatCanOnlyBeReadStillGivesItsOutbox(t *testing.T) {
	h := newHarness(t)
	dir := filepath.Join(h.dir, "ro")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cache.db")
	h.env["REVIEWER_DB"] = path
	h.want(0, "sync")
	id := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	h.env["REVIEWER_API_URL"] = closedPort(t)
	h.want(5, "resubmit", id)
	out, _ := h.want(0, "outbox", "--json")
	var box []map[string]any
	if err := json.Unmarshal([]byte(out), &box); err != nil || len(box) != 1 {
		t.Fatalf("outbox: %v %s", err, out)
	}
	key := box[0]["idempotency_key"]
	// The index the outbox is read through, and the items table: the
	// read-only open succeeds, the outbox's query fails.
	damagePages(t, path, "actions_pending", "items")

	before := readOnlyAsNobody(t, h, dir, path)
	out, errs := h.want(8, "outbox", "--json")
	t.Logf("outbox --json: %s", errs)
	box = nil
	if err := json.Unmarshal([]byte(out), &box); err != nil || len(box) != 1 || box[0]["idempotency_key"] != key || box[0]["item_id"] != id {
		t.Fatalf("outbox --json of a damaged read-only cache: %v\nstdout: %s\nstderr: %s", err, out, errs)
	}
	if !strings.Contains(errs, "CACHE_DAMAGED") || !strings.Contains(errs, "1 action") {
		t.Fatalf("stderr: %s", errs)
	}
	if after := folderBytes(t, dir); after != before {
		t.Fatalf("the read-only folder changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// readsStillShow runs every reading command on a cache that can only be
// read (a folder she cannot write, a full disk) and checks that each shows
// what the cache holds (item id and its queued action's key), with one
// line on stderr that says why (line) and what cannot be done; export
// writes to csv.
func (h *harness) readsStillShow(t *testing.T, line, id, key, csv string) {
	t.Helper()
	read := func(args ...string) string {
		t.Helper()
		out, errs := h.want(0, args...)
		if strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, line) ||
			!strings.Contains(errs, "showing what it holds; nothing can be queued or synced") {
			t.Fatalf("reviewer %s: stderr is not the one line that says the cache is read-only: %q", strings.Join(args, " "), errs)
		}
		return out
	}
	var items []map[string]any
	if out := read("items", "--json"); json.Unmarshal([]byte(out), &items) != nil || len(items) < 100 {
		t.Fatalf("items --json: %d items: %.200s", len(items), out)
	}
	for _, args := range [][]string{{"items"}, {"item", id}} {
		if out := read(args...); !strings.Contains(out, id) {
			t.Fatalf("%s lacks %s:\n%s", strings.Join(args, " "), id, out)
		}
	}
	for _, args := range [][]string{{"item", id, "--json"}, {"outbox"}} {
		if out := read(args...); !strings.Contains(out, key) {
			t.Fatalf("%s lacks the queued action's key %s: %s", strings.Join(args, " "), key, out)
		}
	}
	type queued struct {
		ItemID string `json:"item_id"`
		Key    string `json:"idempotency_key"`
	}
	var box []queued
	if out := read("outbox", "--json"); json.Unmarshal([]byte(out), &box) != nil || len(box) != 1 || box[0] != (queued{id, key}) {
		t.Fatalf("outbox --json: %s", out)
	}
	read("export", "--csv", csv)
	if b, err := os.ReadFile(csv); err != nil || !strings.Contains(string(b), id) {
		t.Fatalf("export: %v %.200s", err, b)
	}
}

// readOnlyAsNobody makes the cache at path (in dir) one she can only read:
// the file 0444, its folder 0555, and every command of h run as another
// user (uid 65534: root writes whatever the modes say). It returns the
// folder's bytes, to hold them unchanged.
func readOnlyAsNobody(t *testing.T, h *harness, dir, path string) string {
	t.Helper()
	asNobody(h)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	return folderBytes(t, dir)
}
