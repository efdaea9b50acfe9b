package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
)

// TestStartWarnsOfAWiderCache: a cache file others may read is said on
// stderr, in words, at the start of a command, and made 0600; the command
// goes on.
func TestStartWarnsOfAWiderCache(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	path := h.env["REVIEWER_DB"]
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := h.want(0, "items")
	if !strings.Contains(errs, "reviewer: warning: the cache file "+path+" was mode 0644 (others could read it): made 0600") {
		t.Fatalf("stderr: %q", errs)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("left %v", fi.Mode())
	}
	if _, errs := h.want(0, "items"); strings.Contains(errs, "warning") {
		t.Fatalf("said again: %q", errs)
	}
}

// TestWindowMakesItsPreferencesPrivate: Fyne makes the app's preferences
// folder 0755 and the file 0644; the window makes them 0700 and 0600.
func TestWindowMakesItsPreferencesPrivate(t *testing.T) {
	h := newHarness(t)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	dir := filepath.Join(cfg, "fyne", "com.trustscreen.reviewer")
	prefs := filepath.Join(dir, "preferences.json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	if err := os.WriteFile(prefs, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(prefs, 0o644)
	opened := false
	var out, errb strings.Builder
	code := cli.Run(nil, cli.Env{Stdout: &out, Stderr: &errb,
		Lookup:     func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
		OpenWindow: func(cli.Window) error { opened = true; return nil }})
	if code != 0 || !opened {
		t.Fatalf("window: exit %d, opened %v: %s", code, opened, errb.String())
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, prefs: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want %04o", p, fi.Mode(), err, want)
		}
	}
}

// The window says what it found wrong with the cache's permissions, where
// a reviewer who double-clicked it never sees stderr.
func TestTheWindowIsToldOfAWiderCache(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	path := h.env["REVIEWER_DB"]
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	got, errs := h.window(0)
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "was mode 0644 (others could read it): made 0600") {
		t.Fatalf("window: warnings %q: %s", got.Warnings, errs)
	}
}
