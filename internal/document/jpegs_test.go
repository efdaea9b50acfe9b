package document

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"math"
	"strings"
	"testing"
)

// boxAverage is m averaged over f × f boxes (a partial box at the edge
// over what it holds).
func boxAverage(m image.Image, f int) *image.RGBA {
	r := toRGBA(m)
	w, h := (r.Rect.Dx()+f-1)/f, (r.Rect.Dy()+f-1)/f
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s [3]int
			n := 0
			for yy := y * f; yy < min(y*f+f, r.Rect.Dy()); yy++ {
				for xx := x * f; xx < min(x*f+f, r.Rect.Dx()); xx++ {
					o := r.PixOffset(xx, yy)
					s[0], s[1], s[2] = s[0]+int(r.Pix[o]), s[1]+int(r.Pix[o+1]), s[2]+int(r.Pix[o+2])
					n++
				}
			}
			o := out.PixOffset(x, y)
			out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = uint8((s[0]+n/2)/n), uint8((s[1]+n/2)/n), uint8((s[2]+n/2)/n), 255
		}
	}
	return out
}

// psnr of a against b (the same size), in dB over R, G and B.
func psnr(t testing.TB, a, b *image.RGBA) float64 {
	t.Helper()
	if a.Rect.Size() != b.Rect.Size() {
		t.Fatalf("sizes %v and %v", a.Rect, b.Rect)
	}
	var se float64
	n := 0
	for i := range a.Pix {
		if i%4 == 3 {
			continue
		}
		d := float64(a.Pix[i]) - float64(b.Pix[i])
		se += d * d
		n++
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

func readPNG(t testing.TB, name string) *image.RGBA {
	t.Helper()
	m, err := png.Decode(bytes.NewReader(readSample(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	return toRGBA(m)
}

// Two sound JPEGs the standard library's decoder calls damaged are shown
// whole: a webcam's Motion-JPEG frame, which has no Huffman tables and is
// coded with the standard ones (Annex K.3), and a progressive file whose
// one-component scans have restart markers (counted per block, section
// A.2.2). Each is held to image-rs/jpeg-decoder's reference decode (the
// webcam frame's averaged over 8 × 8 boxes, to keep the file small), at
// full size and at the first view's reduction.
func TestSoundJPEGsTheStandardDecoderRefusesAreShown(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		file, ref string
		box       int
		w, h      int
	}{
		{"images/mjpeg.jpg", "images/mjpeg.box8.png", 8, 960, 720},
		{"images/non-interleaved-mcu.jpg", "images/non-interleaved-mcu.png", 1, 64, 16},
	} {
		data := readSample(t, tc.file)
		ref := readPNG(t, tc.ref)
		d, err := Open(ctx, JPEG, data, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if w, h := d.Size(); w != tc.w || h != tc.h {
			t.Fatalf("%s: %d×%d", tc.file, w, h)
		}
		page, err := d.Page(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		p := psnr(t, boxAverage(page, tc.box), ref)
		t.Logf("%s: %.1f dB from the reference decode", tc.file, p)
		if p < 35 {
			t.Fatalf("%s: %.1f dB from the reference decode", tc.file, p)
		}
		if tc.box == 1 {
			continue
		}
		// The first view, decoded at 1/8, is the same picture.
		v, err := OpenView(ctx, JPEG, data, Limits{}, 120, 90)
		if err != nil || v.Scale() != 8 {
			t.Fatalf("%s: first view at 1/%d: %v", tc.file, v.Scale(), err)
		}
		base, _, err := v.Base(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		p = psnr(t, toRGBA(base), ref)
		t.Logf("%s: the first view at 1/8 is %.1f dB from it", tc.file, p)
		if p < 30 {
			t.Fatalf("%s: the first view is %.1f dB from the reference", tc.file, p)
		}
	}
}

// An arithmetic-coded JPEG (libjpeg-turbo's testimgari.jpg) is a kind the
// console does not decode: it says so by name, and that the file may be
// sound, not "(unknown marker)" and not damaged.
func TestAnArithmeticCodedJPEGIsNamed(t *testing.T) {
	_, err := Open(context.Background(), JPEG, readSample(t, "images/testimgari.jpg"), Limits{})
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("got %v, want a kind the console does not decode", err)
	}
	if s := err.Error(); !strings.Contains(s, "arithmetic-coded") || strings.Contains(s, "unknown marker") || !strings.Contains(s, "may be sound") {
		t.Fatalf("%q does not name arithmetic coding", s)
	}
}
