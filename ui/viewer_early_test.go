package ui

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/review"
)

// earlyGate holds the viewer's decode of a progressive JPEG just after its
// early picture is on screen, until the test releases it.
func earlyGate(t *testing.T) (shown <-chan struct{}, release func()) {
	t.Helper()
	ch := make(chan struct{}, 4)
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	viewerEarlyShown = func() {
		ch <- struct{}{}
		<-gate
	}
	t.Cleanup(func() { release(); viewerEarlyShown = nil })
	return ch, release
}

func sample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "document", "testdata", "images", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// drawnPixels counts the pixels of a side's view that are not background.
func drawnPixels(s *side) (int, *image.RGBA) {
	sz := s.raster.Size()
	img := s.draw(int(sz.Width), int(sz.Height)).(*image.RGBA)
	n := 0
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			if img.RGBAAt(x, y) != viewerBackground {
				n++
			}
		}
	}
	return n, img
}

// progressiveItem is an item whose first file is the given one and whose
// latest is a baseline photo: the panel shows (and has decoded) the
// latest, so the viewer's left side fetches and decodes the first file
// itself.
func progressiveItem(t *testing.T, first string) (*Console, *viewer) {
	t.Helper()
	docs := newFakeDocs()
	docs.add("itm_1", "image/jpeg", sample(t, first), review.DocumentVersion{})
	docs.add("itm_1", "image/jpeg", sample(t, "upright6.jpg"), review.DocumentVersion{})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"))
	typeOn(c.win, "v")
	return c, c.viewer
}

func waitEarly(t *testing.T, shown <-chan struct{}) {
	t.Helper()
	select {
	case <-shown:
	case <-time.After(60 * time.Second):
		t.Fatal("no early picture")
	}
}

// A progressive photo (a real file): the viewer shows the picture of its
// first scans at once, saying "Sharpening…" while the rest is decoded,
// then the whole file's first view, and says no more of it.
func TestTheViewerShowsAProgressivePhotosFirstScansThenSharpensIt(t *testing.T) {
	shown, release := earlyGate(t)
	c, v := progressiveItem(t, "progressive-photo.jpg")
	waitEarly(t, shown)
	var early *image.RGBA
	c.apply(func() {
		s := v.sides[0]
		if s.state != "early" || s.doc != nil {
			t.Fatalf("while the rest is decoded: state %q, doc %v", s.state, s.doc != nil)
		}
		if !strings.Contains(s.title.Text, "Sharpening…") || !strings.Contains(v.status.Text, "Sharpening…") {
			t.Fatalf("the early picture is not said to be sharpening: title %q, status %q", s.title.Text, v.status.Text)
		}
		var n int
		if n, early = drawnPixels(s); n < 144*224/2 {
			t.Fatalf("the early picture draws %d pixels", n)
		}
	})
	release()
	c.Settle()
	c.apply(func() {
		s := v.sides[0]
		if s.state != "shown" || s.doc == nil {
			t.Fatalf("after the decode: state %q: %s", s.state, s.line.Text)
		}
		if strings.Contains(s.title.Text, "Sharpening") || strings.Contains(v.status.Text, "Sharpening") {
			t.Fatalf("still sharpening: title %q, status %q", s.title.Text, v.status.Text)
		}
		n, refined := drawnPixels(s)
		if n < 144*224/2 {
			t.Fatalf("the refined picture draws %d pixels", n)
		}
		differ := 0
		for i := range refined.Pix {
			if d := int(refined.Pix[i]) - int(early.Pix[i]); d > 24 || d < -24 {
				differ++
			}
		}
		if differ < n/20 {
			t.Fatalf("the refined picture differs from the early one in %d values of %d pixels", differ, n)
		}
	})
}

// The same photo cut short in its last scan, or with a bit flipped in it:
// the early picture is shown (its first scans are whole), then replaced by
// the refusal in the viewer's words; no picture is left on screen.
func TestTheViewerRefusesAProgressivePhotoDamagedLateAfterItsEarlyPicture(t *testing.T) {
	for _, c := range []struct{ file, words string }{
		{"progressive-photo.cut.jpg", "The file is cut short"},
		{"progressive-photo.flipped.jpg", "The file is damaged"},
	} {
		t.Run(c.file, func(t *testing.T) {
			shown, release := earlyGate(t)
			con, v := progressiveItem(t, c.file)
			waitEarly(t, shown)
			con.apply(func() {
				if s := v.sides[0]; s.state != "early" || !strings.Contains(v.status.Text, "Sharpening…") {
					t.Fatalf("state %q, status %q", s.state, v.status.Text)
				}
			})
			release()
			con.Settle()
			con.apply(func() {
				s := v.sides[0]
				if s.state != "refused" || !s.line.Visible() || !strings.HasPrefix(s.line.Text, c.words) {
					t.Fatalf("state %q, line %q (visible %v), want %q", s.state, s.line.Text, s.line.Visible(), c.words)
				}
				if n, _ := drawnPixels(s); n != 0 {
					t.Fatalf("%d pixels of the early picture left under the refusal", n)
				}
				if strings.Contains(s.title.Text, "Sharpening") || strings.Contains(v.status.Text, "Sharpening") {
					t.Fatalf("still sharpening: title %q, status %q", s.title.Text, v.status.Text)
				}
			})
		})
	}
}
