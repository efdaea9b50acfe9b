package ui

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestViewerShot writes pictures of the panel and the side-by-side viewer
// with a replacement turned a quarter (REVIEWER_SHOT_DIR=folder), to look at.
func TestViewerShot(t *testing.T) {
	dir := os.Getenv("REVIEWER_SHOT_DIR")
	if dir == "" {
		t.Skip("REVIEWER_SHOT_DIR=folder writes the pictures")
	}
	c := docConsole(t, twoVersions(t), errorItem("itm_1", "DECODE_FAILED"))
	c.win.Content().Refresh()
	p := c.win.Canvas().Capture()
	save(t, filepath.Join(dir, "panel.png"), p)
	typeOn(c.win, "v")
	c.Settle()
	v := c.viewer
	typeOn(v.win, "ls]")
	save(t, filepath.Join(dir, "viewer.png"), v.win.Canvas().Capture())
}

func save(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
