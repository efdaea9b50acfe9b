package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
)

// TestBundle unpacks the desktop bundle of `make package` and checks what
// a desktop needs of it: the binary and its PDF renderer, its .desktop entry (name, command,
// icon, named by the app id) and its icon, all as FyneApp.toml says, and
// the Makefile that installs it for one user. It runs when the bundle is
// there (PACKAGE_BUNDLE, else reviewer.tar.xz here; `make package` runs
// it); building one takes the packager a minute, so `make test` does not.
func TestBundle(t *testing.T) {
	bundle := os.Getenv("PACKAGE_BUNDLE")
	if bundle == "" {
		bundle = "reviewer.tar.xz"
	}
	if _, err := os.Stat(bundle); err != nil {
		t.Skipf("no bundle at %s (make package builds it and runs this test): %v", bundle, err)
	}
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skipf("xz is not installed, so the bundle cannot be unpacked here: %v", err)
	}
	m, err := cli.ParseAppMeta(fyneAppToml)
	if err != nil {
		t.Fatal(err)
	}
	id := m.Details.ID
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-xJf", bundle, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("unpacking %s: %v: %s", bundle, err, out)
	}
	root := filepath.Join(dir, "reviewer")
	bin := filepath.Join(root, "usr", "local", "bin", "reviewer")
	fi, err := os.Stat(bin)
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the binary: %v %v", fi, err)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), m.Details.Name+" "+m.Details.Version+" (build ") {
		t.Fatalf("%s --version: %q %v", bin, out, err)
	}
	// The PDF renderer, beside the console (where the console looks).
	pdfBin := filepath.Join(root, "usr", "local", "bin", "reviewer-pdf")
	if fi, err := os.Stat(pdfBin); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the PDF renderer: %v %v", fi, err)
	}
	if out, err := exec.Command(pdfBin, "-h").CombinedOutput(); err != nil || !strings.Contains(string(out), "PDF renderer of "+m.Details.Name) {
		t.Fatalf("%s -h: %q %v", pdfBin, out, err)
	}
	desktop := filepath.Join(root, "usr", "local", "share", "applications", id+".desktop")
	entry := readDesktopEntry(t, desktop)
	want := map[string]string{"Type": "Application", "Name": m.Details.Name, "Exec": "reviewer", "Icon": id,
		"Categories": "Office;"}
	for k, v := range want {
		if entry[k] != v {
			t.Errorf("%s: %s=%q, want %q", desktop, k, entry[k], v)
		}
	}
	if entry["Comment"] == "" || entry["GenericName"] == "" {
		t.Errorf("%s has no Comment or GenericName: %v", desktop, entry)
	}
	icon, err := os.ReadFile(filepath.Join(root, "usr", "local", "share", "pixmaps", id+".png"))
	if err != nil {
		t.Fatal(err)
	}
	if src, err := os.ReadFile(m.Details.Icon); err != nil || !bytes.Equal(icon, src) {
		t.Fatalf("the bundle's icon is not %s: %v", m.Details.Icon, err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil || !bytes.Contains(mk, []byte("user-install:")) || !bytes.Contains(mk, []byte("user-uninstall:")) {
		t.Fatalf("the bundle's Makefile cannot install for one user: %v", err)
	}
	// Installed for one user into a home of its own, then removed.
	home := t.TempDir()
	if out, err := exec.Command("make", "-C", root, "user-install", "HOME="+home).CombinedOutput(); err != nil {
		t.Fatalf("make user-install: %v: %s", err, out)
	}
	installed := readDesktopEntry(t, filepath.Join(home, ".local", "share", "applications", id+".desktop"))
	if installed["Exec"] != filepath.Join(home, ".local", "bin", "reviewer") {
		t.Fatalf("installed entry runs %q", installed["Exec"])
	}
	for _, p := range []string{filepath.Join(home, ".local", "bin", "reviewer"), filepath.Join(home, ".local", "bin", "reviewer-pdf"), filepath.Join(home, ".local", "share", "icons", id+".png")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("make", "-C", root, "user-uninstall", "HOME="+home).CombinedOutput(); err != nil {
		t.Fatalf("make user-uninstall: %v: %s", err, out)
	}
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			t.Errorf("left after user-uninstall: %s", p)
		}
		return nil
	})
}

// readDesktopEntry reads the keys of a .desktop file's [Desktop Entry].
func readDesktopEntry(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "["):
			in = line == "[Desktop Entry]"
		case in && strings.Contains(line, "="):
			k, v, _ := strings.Cut(line, "=")
			out[k] = v
		}
	}
	return out
}
