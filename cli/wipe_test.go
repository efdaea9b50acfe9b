package cli_test

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/store"
)

// kept reports whether the harness's keyring still holds the token.
func (h *wipeHarness) kept() bool {
	_, err := h.keyring.Get(keyring.TokenName)
	return err == nil
}

// wipeHarness is the harness with a home folder of the reviewer's own:
// the cache sits in it, beside her files, and Fyne's preferences are in
// its config folder.
type wipeHarness struct {
	*harness
	home, cfg string
	keyring   *keyring.Keyring // go-keyring's mock (TestMain), holding a token
	ours      []string         // the console's files, all present after setUp
	hers      []string         // files that are not the console's, beside them
}

func newWipeHarness(t *testing.T) *wipeHarness {
	h := &wipeHarness{harness: newHarness(t), keyring: keyring.New("com.trustscreen.reviewer.test-" + t.Name())}
	if err := h.keyring.Set(keyring.TokenName, "wipe-test-token-0001"); err != nil {
		t.Fatal(err)
	}
	h.home = filepath.Join(h.dir, "home")
	h.cfg = filepath.Join(h.home, ".config")
	t.Setenv("HOME", h.home)
	t.Setenv("XDG_CONFIG_HOME", h.cfg)
	cache := filepath.Join(h.home, "cache.db")
	h.env["REVIEWER_DB"] = cache
	for _, f := range []string{"notes.txt", "cache.db.bak", "cache.db-old", "other.db", "other.db-wal"} {
		h.hers = append(h.hers, filepath.Join(h.home, f))
	}
	fyne := filepath.Join(h.cfg, "fyne")
	h.hers = append(h.hers, filepath.Join(fyne, "settings.json"), filepath.Join(fyne, "com.example.other", "preferences.json"),
		filepath.Join(fyne, "com.trustscreen.reviewer", "Documents", "hers.pdf"))
	for _, f := range h.hers {
		writeFile(t, f, "hers")
	}
	// Documents kept for offline review and their key file (keptdocs).
	for _, p := range []string{keptdocs.Dir(cache) + "/itm_1.1", keptdocs.KeyFile(cache)} {
		writeFile(t, p, "sealed")
		h.ours = append(h.ours, p)
	}
	for _, id := range []string{"com.trustscreen.reviewer", "com.trustscreen.reviewer.demo"} {
		p := filepath.Join(fyne, id, "preferences.json")
		writeFile(t, p, `{"api_url":"http://127.0.0.1:1"}`)
		h.ours = append(h.ours, p)
	}
	h.want(0, "sync")
	// A console that crashed left the cache's -wal and -shm behind.
	holdCache(t, cache).crash()
	for _, s := range []string{"", "-wal", "-shm"} {
		h.ours = append(h.ours, cache+s)
	}
	h.checkPresent(h.ours...)
	return h
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (h *wipeHarness) checkPresent(paths ...string) {
	h.t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			h.t.Fatalf("%s is gone: %v", p, err)
		}
	}
}

func (h *wipeHarness) checkGone(paths ...string) {
	h.t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			h.t.Fatalf("%s is still there", p)
		}
	}
}

// wipe runs reviewer wipe with the fake keyring, on a terminal when
// answer is not "" (and what she types), else without one.
func (h *wipeHarness) wipe(code int, answer string, args ...string) (string, string) {
	h.t.Helper()
	var out, errb bytes.Buffer
	env := cli.Env{Stdout: &out, Stderr: &errb, Keyring: h.keyring,
		Lookup:      func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
		Interactive: func() bool { return answer != "" }, Stdin: strings.NewReader(answer)}
	got := cli.Run(append([]string{"wipe"}, args...), env)
	if got != code {
		h.t.Fatalf("reviewer wipe %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, out.String(), errb.String())
	}
	if code != 0 && strings.Count(strings.TrimSpace(errb.String()), "\n") > 0 {
		h.t.Fatalf("stderr is more than one line: %q", errb.String())
	}
	return out.String(), errb.String()
}

// TestWipeRemovesOnlyTheConsolesFiles: the cache (with its -wal and -shm)
// in the reviewer's home folder, both preferences files and the keyring
// entry go; her files beside the cache, Fyne's own settings, another
// app's preferences and her file in the console's Fyne folder stay.
func TestWipeRemovesOnlyTheConsolesFiles(t *testing.T) {
	h := newWipeHarness(t)
	out, _ := h.wipe(0, "", "--yes")
	h.checkGone(h.ours...)
	h.checkPresent(h.hers...)
	h.checkPresent(h.home)
	if h.kept() {
		t.Fatal("the token is still in the keyring")
	}
	for _, f := range h.ours {
		if !strings.Contains(out, f) {
			t.Fatalf("the report does not name %s: %q", f, out)
		}
	}
	if !strings.Contains(out, "keyring") {
		t.Fatalf("the report does not name the keyring: %q", out)
	}
	// The demo's Fyne folder, left empty, goes; the console's keeps her file.
	h.checkGone(filepath.Join(h.cfg, "fyne", "com.trustscreen.reviewer.demo"))
	// Again: nothing of the console's is left (the keyring is asked again:
	// it cannot be seen from here whether it holds anything).
	h.wipe(0, "", "--yes")
	h.checkPresent(h.hers...)
}

// TestWipeNeedsAYes: without a terminal it needs --yes; on a terminal only
// y or yes goes ahead; nothing is removed otherwise.
func TestWipeNeedsAYes(t *testing.T) {
	h := newWipeHarness(t)
	_, errs := h.wipe(2, "")
	if !strings.Contains(errs, "--yes") {
		t.Fatalf("without a terminal: %q", errs)
	}
	for _, answer := range []string{"\n", "n\n", "no\n", "whatever\n"} {
		out, _ := h.wipe(3, answer)
		if !strings.Contains(out, "Go ahead? [y/N]") || !strings.Contains(out, "nothing was removed") {
			t.Fatalf("answer %q: %q", answer, out)
		}
	}
	h.checkPresent(h.ours...)
	if !h.kept() {
		t.Fatal("the keyring was emptied without a yes")
	}
	h.wipe(0, "yes\n")
	h.checkGone(h.ours...)
	h.checkPresent(h.hers...)
}

// setState puts the cache's one action and one note in a state, as the
// workflow leaves them (the states' own paths are the workflow's tests).
func setState(t *testing.T, path, table, state string) {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE `+table+` SET state = ?`, state); err != nil {
		t.Fatal(err)
	}
}

// TestWipeRefusesWithUnsentWork: with an action or a note queued, being
// sent or of unknown outcome, wipe refuses (exit 3) and names it; a done,
// failed or cancelled one holds nothing back. --export-outbox writes them
// first, with their keys, to a new 0600 file, never over an existing one.
func TestWipeRefusesWithUnsentWork(t *testing.T) {
	for _, c := range []struct {
		table, state string
		refused      bool
	}{
		{"actions", "queued", true}, {"actions", "sending", true}, {"actions", "unknown", true},
		{"actions", "done", false}, {"actions", "failed", false}, {"actions", "cancelled", false},
		{"notes", "queued", true}, {"notes", "sending", true}, {"notes", "unknown", true}, {"notes", "failed", false},
	} {
		t.Run(c.table+"_"+c.state, func(t *testing.T) {
			h := newWipeHarness(t)
			out, _ := h.want(0, "items", "--retryable", "--json")
			var items []struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal([]byte(out), &items); err != nil || len(items) == 0 {
				t.Fatal(out, err)
			}
			h.env["REVIEWER_API_URL"] = closedPort(t) // queued: the service is away
			item := items[0].ID
			if c.table == "actions" {
				h.want(5, "resubmit", item)
			} else {
				h.want(5, "note", item, "called the customer")
			}
			h.env["REVIEWER_API_URL"] = h.srv.URL()
			setState(t, h.env["REVIEWER_DB"], c.table, c.state)
			holdCache(t, h.env["REVIEWER_DB"]).crash() // -wal and -shm left behind again
			if !c.refused {
				h.wipe(0, "", "--yes")
				h.checkGone(h.ours...)
				return
			}
			_, errs := h.wipe(3, "", "--yes")
			if !strings.Contains(errs, item) || !strings.Contains(errs, c.state) || !strings.Contains(errs, "--export-outbox") {
				t.Fatalf("the refusal does not name the %s %s on %s: %q", c.table, c.state, item, errs)
			}
			h.checkPresent(h.ours...)
			h.checkPresent(h.hers...)
			if !h.kept() {
				t.Fatal("the keyring was emptied with unsent work")
			}
			// An existing file is never overwritten: refused, nothing removed.
			existing := h.hers[0]
			_, errs = h.wipe(3, "", "--yes", "--export-outbox", existing)
			if !strings.Contains(errs, "already exists") {
				t.Fatalf("export over an existing file: %q", errs)
			}
			if b, _ := os.ReadFile(existing); string(b) != "hers" {
				t.Fatalf("her file was overwritten: %q", b)
			}
			h.checkPresent(h.ours...)
			// A new file: written, then everything of the console's goes.
			saved := filepath.Join(h.dir, "outbox-saved.json")
			h.wipe(0, "", "--yes", "--export-outbox", saved)
			h.checkGone(h.ours...)
			h.checkPresent(h.hers...)
			fi, err := os.Stat(saved)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("the export: %v, mode %v", err, fi.Mode().Perm())
			}
			var got []struct {
				ItemID string `json:"item_id"`
				Key    string `json:"idempotency_key"`
				State  string `json:"state"`
				Kind   string `json:"kind"`
			}
			b, _ := os.ReadFile(saved)
			if err := json.Unmarshal(b, &got); err != nil || len(got) != 1 || got[0].ItemID != item || got[0].Key == "" || got[0].State != c.state {
				t.Fatalf("the export holds %s (%v)", b, err)
			}
		})
	}
}

// TestWipeRefusesWhileAnotherConsoleHasTheCacheOpen: another process (the
// window, a flush) that holds the cache open would go on writing to a
// removed file; wipe says so and removes nothing.
func TestWipeRefusesWhileAnotherConsoleHasTheCacheOpen(t *testing.T) {
	h := newWipeHarness(t)
	other := holdCache(t, h.env["REVIEWER_DB"])
	_, errs := h.wipe(8, "", "--yes")
	if !strings.Contains(errs, "has the cache") || !strings.Contains(errs, "nothing was removed") {
		t.Fatalf("wipe under an open console: %q", errs)
	}
	h.checkPresent(h.ours...)
	h.checkPresent(h.hers...)
	if !h.kept() {
		t.Fatal("the keyring was emptied")
	}
	other.close()
	h.wipe(0, "", "--yes")
	h.checkGone(h.ours...)
}

// beTheOtherConsole is another console holding a cache open, until the test
// closes its stdin or kills it (TestMain).
func beTheOtherConsole(path string) {
	db, err := store.Open(path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("open")
	b := make([]byte, 1)
	os.Stdin.Read(b)
	db.Close()
	os.Exit(0)
}

// otherConsole is another process with the cache open.
type otherConsole struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func holdCache(t *testing.T, path string) *otherConsole {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WIPE_HOLD_CACHE="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o := &otherConsole{t: t, cmd: cmd, stdin: stdin}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "open\n" {
		t.Fatalf("the other console: %q %v", line, err)
	}
	return o
}

// close ends the other console cleanly.
func (o *otherConsole) close() {
	o.t.Helper()
	o.stdin.Close()
	if err := o.cmd.Wait(); err != nil {
		o.t.Fatal(err)
	}
}

// crash ends it as a crash would: its -wal and -shm stay behind.
func (o *otherConsole) crash() {
	o.cmd.Process.Kill()
	o.cmd.Wait()
}

// "Remove all local data" in the window: the window asks, closes, and the
// files go once the cache is closed; a window closed without asking
// leaves everything.
func TestTheWindowsRemoveAllLocalDataWipesAfterItCloses(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	cache := h.env["REVIEWER_DB"]
	run := func(ask bool) int {
		var out, errb strings.Builder
		return cli.Run(nil, cli.Env{Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
			OpenWindow: func(w cli.Window) error {
				if w.WipeAtExit == nil {
					t.Fatal("the window is not offered the wipe")
				}
				if _, err := os.Stat(cache); err != nil {
					t.Fatalf("the cache is gone while the window is open: %v", err)
				}
				if ask {
					w.WipeAtExit()
				}
				return nil
			}})
	}
	if code := run(false); code != 0 {
		t.Fatalf("window: exit %d", code)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("a window closed without asking removed the cache: %v", err)
	}
	if code := run(true); code != 0 {
		t.Fatalf("window with the wipe: exit %d", code)
	}
	for _, f := range []string{cache, cache + "-wal", cache + "-shm"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s is still there: %v", f, err)
		}
	}
}
