package ui

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/review"
)

// stripesJPEG is a w × h JPEG of one-pixel dark and light columns: a
// detail a reduced decode averages away and only the full size shows.
func stripesJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.SetGray(x, y, color.Gray{Y: uint8(40 + 170*(x%2))})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// stripes counts the neighbouring pixels of the drawn view's middle row
// that differ as the columns do (and the ones drawn at all).
func stripes(img *image.RGBA) (contrasted, drawn int) {
	b := img.Bounds()
	y := b.Min.Y + b.Dy()/2
	for x := b.Min.X + b.Dx()/4; x < b.Max.X-b.Dx()/4; x++ {
		p, q := img.RGBAAt(x, y), img.RGBAAt(x+1, y)
		if p != viewerBackground {
			drawn++
		}
		if d := int(p.G) - int(q.G); d > 80 || d < -80 {
			contrasted++
		}
	}
	return contrasted, drawn
}

// The viewer on a large JPEG draws its first view from a reduced decode;
// at 100 % it asks for the full size, draws the reduced picture upscaled
// meanwhile (never a blank), and ends showing the full size's pixels.
func TestTheViewerAt100PercentShowsTheFullSize(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/jpeg", stripesJPEG(t, 2400, 1800), review.DocumentVersion{})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"))
	typeOn(c.win, "v")
	c.Settle()
	v := c.viewer
	s := v.sides[0]
	var at func() *image.RGBA
	c.apply(func() {
		if s.state != "shown" || s.doc.Scale() == 1 || s.reduced == nil || s.full != nil {
			t.Fatalf("first view: state %q, scale 1/%d, reduced %v, full %v", s.state, s.doc.Scale(), s.reduced != nil, s.full != nil)
		}
		if w, h := s.size(); w != 2400 || h != 1800 {
			t.Fatalf("page size %v×%v", w, h)
		}
		at = func() *image.RGBA {
			sz := s.raster.Size()
			return s.draw(int(sz.Width), int(sz.Height)).(*image.RGBA)
		}
	})
	typeOn(v.win, "1")
	c.apply(func() {
		// Whether the full size has come yet or not, the view is drawn.
		if _, drawn := stripes(at()); drawn == 0 {
			t.Fatal("a blank view while the full size is decoded")
		}
	})
	c.Settle() // the full size's decode is background work: wait for it
	var first image.Image
	c.apply(func() {
		first = s.full
		if s.full == nil || s.reduced != nil || s.full.Bounds().Dx() != 2400 {
			t.Fatalf("after 100 %%: full %v, reduced %v", s.full != nil, s.reduced != nil)
		}
		con, drawn := stripes(at())
		if drawn == 0 || con < drawn*3/4 {
			t.Fatalf("at 100 %% the columns show in %d of %d pixels", con, drawn)
		}
	})
	// Fit again, then a turn and 100 % again: the full size stays, the
	// same picture (nothing asked for or decoded again).
	typeOn(v.win, "0]1")
	c.Settle()
	c.apply(func() {
		if s.full != first || s.view.turns != 1 || s.view.zoom != 1 {
			t.Fatalf("turned: full %v, turns %d, zoom %v", s.full != nil, s.view.turns, s.view.zoom)
		}
	})
}

// A phone photo stored landscape with EXIF orientation 6 (a real file,
// internal/document/testdata/images/orient6.jpg): the viewer draws it
// upright, 144 × 224, and says on its status line that it was turned.
func TestTheViewerShowsAPhonePhotoUprightAndSaysSo(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "internal", "document", "testdata", "images", "orient6.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	docs := newFakeDocs()
	docs.add("itm_1", "image/jpeg", data, review.DocumentVersion{})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"))
	typeOn(c.win, "v")
	c.Settle()
	v := c.viewer
	s := v.sides[0]
	c.apply(func() {
		if s.state != "shown" {
			t.Fatalf("state %q: %s", s.state, s.line.Text)
		}
		if w, h := s.size(); w != 144 || h != 224 {
			t.Fatalf("page size %v×%v, want the upright 144×224", w, h)
		}
		if st := v.status.Text; !strings.Contains(st, "upright as the photo's EXIF orientation asks (turned 90° clockwise)") {
			t.Fatalf("the status line does not say the photo was turned: %q", st)
		}
	})
}
