package ui

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/go-text/typesetting/fontscan"
)

// TestTheWindowScansTheSystemFontsOnce holds ScanSystemFonts to what the
// window's start counts on: it is the scan that Fyne's first text measure
// makes, and Fyne does not make it again. Each case runs in a process of
// its own (the scan is made once per process) with a user cache folder of
// its own, where the scan writes its index file:
//   - alone, Fyne's first measure writes the index (else the next case
//     would hold nothing);
//   - after ScanSystemFonts's scan, which writes the index there, the file
//     is removed, and Fyne's first measure must not write it again.
func TestTheWindowScansTheSystemFontsOnce(t *testing.T) {
	if mode := os.Getenv("UI_FONTSCAN_CHILD"); mode != "" {
		fontScanChild(t, mode == "ours-first")
		return
	}
	for _, mode := range []string{"fyne-alone", "ours-first"} {
		t.Run(mode, func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestTheWindowScansTheSystemFontsOnce$", "-test.v")
			// The user cache folder, as os.UserCacheDir finds it on each
			// system (XDG_CACHE_HOME; HOME on macOS; LocalAppData on Windows).
			cmd.Env = append(os.Environ(), "UI_FONTSCAN_CHILD="+mode, "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
				"HOME="+home, "LocalAppData="+filepath.Join(home, "cache"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if strings.Contains(string(out), "--- SKIP") {
				t.Skipf("%s", out)
			}
		})
	}
}

// fontScanChild is one case of TestTheWindowScansTheSystemFontsOnce.
func fontScanChild(t *testing.T, oursFirst bool) {
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	index := func() []string {
		found, _ := filepath.Glob(filepath.Join(dir, "font_index_v*.cache"))
		return found
	}
	if oursFirst {
		if err := scanSystemFonts(); err != nil {
			t.Skipf("no system fonts to scan here: %v", err)
		}
		found := index()
		if len(found) != 1 {
			t.Fatalf("the scan wrote no index in the user cache folder %s: %v", dir, found)
		}
		if err := os.Remove(found[0]); err != nil {
			t.Fatal(err)
		}
	}
	if !oursFirst && !systemHasFonts() {
		t.Skip("no system fonts here: Fyne has nothing to scan")
	}
	test.NewTempApp(t)
	if fyne.MeasureText("Aa", 13, fyne.TextStyle{}).Width <= 0 {
		t.Fatal("Fyne measured no text")
	}
	switch found := index(); {
	case oursFirst && len(found) != 0:
		t.Fatalf("Fyne scanned the system's fonts again: %v", found)
	case !oursFirst && len(found) != 1:
		t.Fatalf("Fyne's first measure wrote no index in %s (%v): it no longer scans there, and the other case holds nothing", dir, found)
	}
}

// systemHasFonts reports whether a font file lies in one of the folders
// that go-text scans.
func systemHasFonts() bool {
	dirs, _ := fontscan.DefaultFontDirectories(quietFontLog{})
	for _, d := range dirs {
		found := false
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			switch strings.ToLower(filepath.Ext(p)) {
			case ".ttf", ".otf", ".ttc", ".otc":
				found = true
				return fs.SkipAll
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}
