package cli_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/screenapi"
)

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// pageHook is a loopback proxy in front of the service that runs a hook
// once, after the service answered the first page of a sync and before
// the page travels on to the console.
func pageHook(t *testing.T, upstream string, hook func()) string {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodGet && strings.HasPrefix(resp.Request.URL.Path, "/v1/batches") {
			once.Do(hook)
		}
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// On a full disk, a sync is a read that could not be kept: exit 7, in
// words: the disk is full, free space, run it again. Nothing else changes.
func TestSyncOnAFullDiskExits7AndSaysTheDiskIsFull(t *testing.T) {
	h := newHarness(t)
	h.want(0, "items") // makes the cache
	dbPath, err := filepath.EvalSymlinks(h.env["REVIEWER_DB"])
	if err != nil {
		t.Fatal(err)
	}
	h.env["REVIEWER_API_URL"] = pageHook(t, h.srv.URL(), func() { fillDisk(t, dbPath) })
	_, errs := h.want(7, "sync")
	t.Logf("stderr: %s", errs)
	for _, w := range []string{"DISK_FULL", "is full", "free space", "run 'reviewer sync' again"} {
		if !strings.Contains(errs, w) {
			t.Fatalf("stderr lacks %q: %s", w, errs)
		}
	}
	if strings.Contains(errs, "INTERNAL_ERROR") {
		t.Fatalf("stderr: %s", errs)
	}
}

// freezeDir makes dir unwritable for this process, even as root (chattr
// +i; root ignores modes), else with its mode; undone when the test ends.
func freezeDir(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o500)
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s immutable here (chattr +i: %v %s)", dir, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

// A cache in a folder this process cannot write: the reading commands
// work (with a warning), the writing ones say why not and what to do, with
// exit 8, and nothing reaches the service.
func TestAReadOnlyCacheReadsAndWritesSayWhyNot(t *testing.T) {
	h := newHarness(t)
	dir := filepath.Join(h.dir, "ro")
	os.Mkdir(dir, 0o700)
	h.env["REVIEWER_DB"] = filepath.Join(dir, "cache.db")
	h.want(0, "sync")
	id := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	api := h.env["REVIEWER_API_URL"]
	h.env["REVIEWER_API_URL"] = closedPort(t)
	h.want(5, "resubmit", id) // queued: the service cannot be reached
	h.env["REVIEWER_API_URL"] = api
	freezeDir(t, dir)

	out, errs := h.want(0, "outbox", "--json")
	var box []map[string]any
	if err := json.Unmarshal([]byte(out), &box); err != nil || len(box) != 1 || box[0]["item_id"] != id {
		t.Fatalf("outbox of a read-only cache: %v %s", err, out)
	}
	t.Logf("outbox --json: %s", errs)
	if !strings.Contains(errs, "cannot be written") || !strings.Contains(errs, "read-only") {
		t.Fatalf("no warning: %q", errs)
	}
	out, _ = h.want(0, "items", "--json")
	var items []map[string]any
	if err := json.Unmarshal([]byte(out), &items); err != nil || len(items) < 100 {
		t.Fatalf("items of a read-only cache: %v (%d)", err, len(items))
	}
	h.want(0, "item", id)

	for _, args := range [][]string{{"sync"}, {"flush"}, {"resubmit", h.srv.FindCode("CLASSIFIER_UNAVAILABLE")}} {
		_, errs := h.want(8, args...)
		t.Logf("%v: %s", args, errs)
		for _, w := range []string{"CACHE_READ_ONLY", "cannot be written", dir, "reading commands", "REVIEWER_DB"} {
			if !strings.Contains(errs, w) {
				t.Fatalf("%v: stderr lacks %q: %s", args, w, errs)
			}
		}
	}
	if n := h.srv.Arrivals(screenapi.EPResubmit); n != 0 {
		t.Fatalf("%d re-submissions reached the service from a read-only cache", n)
	}
}

// asChildEnv, in a child's environment, makes this test binary the
// command line (TestMain): its arguments are the command's.
const asChildEnv = "REVIEWER_TEST_AS_CHILD"

// runAsChild runs the command line with this process's arguments and
// environment, and exits with its status.
func runAsChild() {
	keyring.MockInit()
	os.Exit(cli.Run(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Lookup: os.LookupEnv}))
}

func sumFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// damagePages overwrites the first page of each named table or index of
// the cache with bytes that are no b-tree page, as a failing disk does.
func damagePages(t *testing.T, path string, names ...string) {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var busy, logged, moved int
	if err := raw.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved); err != nil || busy != 0 {
		t.Fatalf("checkpoint: busy %d: %v", busy, err)
	}
	var pageSize int64
	raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
	var roots []int64
	for _, n := range names {
		var root int64
		if err := raw.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = ?`, n).Scan(&root); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		roots = append(roots, root)
	}
	raw.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := []byte(strings.Repeat("\xff", int(pageSize)))
	for _, root := range roots {
		if _, err := f.WriteAt(junk, (root-1)*pageSize); err != nil {
			t.Fatal(err)
		}
	}
}

// A damaged cache ("database disk image is malformed"): every command says
// so in words, with how to save the unsent actions and start a new cache,
// and exit 8; `outbox --json` still reads the unsent actions and their
// keys from it; the console never changes, deletes or replaces the file.
func TestADamagedCacheIsKeptAndItsOutboxRead(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	api := h.env["REVIEWER_API_URL"]
	h.env["REVIEWER_API_URL"] = closedPort(t)
	h.want(5, "resubmit", id)
	out, _ := h.want(0, "outbox", "--json")
	var before []map[string]any
	if err := json.Unmarshal([]byte(out), &before); err != nil || len(before) != 1 {
		t.Fatalf("outbox: %v %s", err, out)
	}
	key := before[0]["idempotency_key"].(string)
	h.env["REVIEWER_API_URL"] = api
	path := h.env["REVIEWER_DB"]
	// The index the outbox is read through, and the items table.
	damagePages(t, path, "actions_pending", "items")
	sum := sumFile(t, path)

	for _, args := range [][]string{{"items"}, {"item", id}, {"sync"}, {"flush"}} {
		_, errs := h.want(8, args...)
		t.Logf("%v: %s", args, errs)
		for _, w := range []string{"CACHE_DAMAGED", "is damaged", "never repairs, replaces or deletes it", "reviewer outbox --json", "mv ", "start a new one"} {
			if !strings.Contains(errs, w) {
				t.Fatalf("%v: stderr lacks %q: %s", args, w, errs)
			}
		}
	}
	out, errs := h.want(8, "outbox", "--json")
	t.Logf("outbox --json: %s", errs)
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 || got[0]["idempotency_key"] != key || got[0]["item_id"] != id {
		t.Fatalf("outbox --json of a damaged cache: %v\nstdout: %s\nstderr: %s", err, out, errs)
	}
	if !strings.Contains(errs, "1 action") || !strings.Contains(errs, "outbox-saved.json") {
		t.Fatalf("stderr: %s", errs)
	}
	if sumFile(t, path) != sum {
		t.Fatal("the console changed the damaged cache")
	}
	if h.srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatal("a damaged cache's action was sent")
	}
}

// A file that is not a database at all (its header overwritten): the
// outbox says that nothing could be read, and the file stays as it was.
func TestACacheWithoutAHeaderIsKept(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	path := h.env["REVIEWER_DB"]
	damagePages(t, path, "batches")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte(strings.Repeat("\xff", 100)), 0)
	f.Close()
	sum := sumFile(t, path)
	_, errs := h.want(8, "sync")
	if !strings.Contains(errs, "CACHE_DAMAGED") {
		t.Fatalf("sync: %s", errs)
	}
	out, errs := h.want(8, "outbox", "--json")
	t.Logf("outbox --json: %s", errs)
	if out != "" {
		t.Fatalf("an outbox that could not be read printed %q, as if empty", out)
	}
	if !strings.Contains(errs, "CACHE_DAMAGED") || !strings.Contains(errs, "nothing of its outbox could be read") ||
		!strings.Contains(errs, "keep a copy") {
		t.Fatalf("outbox: %s %s", out, errs)
	}
	if sumFile(t, path) != sum {
		t.Fatal("the console changed the damaged cache")
	}
}
