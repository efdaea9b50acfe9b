package jpegscale

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every progressive picture of the standard library's test files (gray,
// each chroma subsampling, DC scans of each component apart) hands its
// early picture once, before the decode ends: 1/8 of the size, within a
// 24 dB of the whole picture box-averaged over 8 × 8 (the DC terms
// less their refined low bits, chroma as subsampled as the file's: 25.5 dB
// for 4:1:0 at quality 50, 52 dB for 4:2:0 at libjpeg's default); the decode then ends with the picture
// DecodeScaled gives. A baseline file hands none.
func TestAProgressiveJPEGHandsItsFirstScansPictureEarly(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jpeg"))
	progressives := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		if strings.Contains(name, "truncated") || strings.Contains(name, "cmyk") || strings.Contains(name, "rgb") {
			continue
		}
		whole, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, denom := range []int{1, 4, 8} {
			var early image.Image
			calls := 0
			got, err := DecodeScaledEarly(context.Background(), bytes.NewReader(data), denom, func(m image.Image) { early = m; calls++ })
			if err != nil {
				t.Fatalf("%s at 1/%d: %v", name, denom, err)
			}
			want, _ := DecodeScaled(bytes.NewReader(data), denom)
			if !samePixels(got, want) {
				t.Fatalf("%s at 1/%d: the decode with an early picture differs from DecodeScaled's", name, denom)
			}
			if !IsProgressive(bytes.NewReader(data)) {
				if calls != 0 {
					t.Fatalf("%s (baseline): %d early pictures", name, calls)
				}
				continue
			}
			if denom == 1 {
				progressives++
			}
			if calls != 1 {
				t.Fatalf("%s at 1/%d: %d early pictures, want 1", name, denom, calls)
			}
			wb, eb := whole.Bounds(), early.Bounds()
			if eb.Dx() != (wb.Dx()+7)/8 || eb.Dy() != (wb.Dy()+7)/8 {
				t.Fatalf("%s: early picture %v for %v", name, eb, wb)
			}
			ref := boxAverage(whole, 8)
			p := psnr(toRGBA(early), ref, eb.Dx()-1, eb.Dy()-1)
			if p < 24 {
				t.Fatalf("%s: the early picture is %.1f dB from the whole one averaged over 8 × 8", name, p)
			}
		}
	}
	if progressives < 8 {
		t.Fatalf("%d progressive files tried", progressives)
	}
}

// A progressive file cut short, or with a bit flipped in its last scan,
// still hands its early picture (its first scans are whole), and the
// decode then fails: the early picture never stands for the file.
func TestAProgressiveJPEGDamagedLateGivesItsEarlyPictureThenAnError(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "video-001.progressive.jpeg"))
	if err != nil {
		t.Fatal(err)
	}
	last := bytes.LastIndex(data, []byte{0xff, 0xda})
	cut := data[:last+(len(data)-last)/2]
	check := func(what string, b []byte) {
		t.Helper()
		calls := 0
		if _, err := DecodeScaledEarly(context.Background(), bytes.NewReader(b), 1, func(image.Image) { calls++ }); err == nil || calls != 1 {
			t.Fatalf("%s: %d early pictures, error %v; want 1 and an error", what, calls, err)
		}
	}
	check("cut short in its last scan", cut)
	// A flipped bit the decoder finds, in the last scan's data.
	found := false
	for i := last + 12; i < len(data)-2 && !found; i++ {
		for bit := 0; bit < 8; bit++ {
			b := bytes.Clone(data)
			b[i] ^= 1 << bit
			if b[i] == 0xff || b[i-1] == 0xff {
				continue
			}
			if _, err := DecodeScaled(bytes.NewReader(b), 1); err != nil {
				check("a bit flipped in its last scan", b)
				found = true
				break
			}
		}
	}
	if !found {
		t.Fatal("no flipped bit of the last scan is found by the decoder")
	}
}

func samePixels(a, b image.Image) bool {
	switch m := a.(type) {
	case *image.Gray:
		n, ok := b.(*image.Gray)
		return ok && m.Rect == n.Rect && bytes.Equal(m.Pix, n.Pix)
	case *image.YCbCr:
		n, ok := b.(*image.YCbCr)
		return ok && m.Rect == n.Rect && bytes.Equal(m.Y, n.Y) && bytes.Equal(m.Cb, n.Cb) && bytes.Equal(m.Cr, n.Cr)
	}
	return false
}
