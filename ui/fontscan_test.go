package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestTheWindowScansTheSystemFontsOnce holds ScanSystemFonts to what the
// window's start counts on: it is the scan that Fyne's first text measure
// makes, quietly, and Fyne does not make it again. Run in a process of its
// own (the scan is made once per process), with a cache folder of its own:
// the scan writes its index file there, the file is removed, and Fyne's
// first measure must not write it again.
func TestTheWindowScansTheSystemFontsOnce(t *testing.T) {
	if os.Getenv("UI_FONTSCAN_CHILD") != "" {
		if err := scanSystemFonts(); err != nil {
			t.Skipf("no system fonts to scan here: %v", err)
		}
		index, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "font_index_v*.cache"))
		if len(index) != 1 {
			t.Fatalf("the scan wrote no index in its cache folder: %v", index)
		}
		if err := os.Remove(index[0]); err != nil {
			t.Fatal(err)
		}
		test.NewTempApp(t)
		if fyne.MeasureText("Aa", 13, fyne.TextStyle{}).Width <= 0 {
			t.Fatal("Fyne measured no text")
		}
		if again, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "font_index_v*.cache")); len(again) != 0 {
			t.Fatalf("Fyne scanned the system's fonts again: %v", again)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTheWindowScansTheSystemFontsOnce$", "-test.v")
	cmd.Env = append(os.Environ(), "UI_FONTSCAN_CHILD=1", "XDG_CACHE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}
