package document

import (
	"bytes"
	"context"
	"errors"
	"image"
	"strings"
	"testing"
	"time"
)

func TestImagesOpenAsTheyAre(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, typ string
		data      []byte
		w, h      int
	}{
		{"jpeg", "image/jpeg", encJPEG(t, card(320, 200), 90), 320, 200},
		{"jpeg with parameters", "IMAGE/JPEG; charset=binary", encJPEG(t, card(32, 20), 90), 32, 20},
		{"png", "image/png", encPNG(t, card(64, 40)), 64, 40},
		{"webp", "image/webp", webp1x1, 1, 1},
	} {
		d, err := Open(ctx, tc.typ, tc.data, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if w, h := d.Size(); w != tc.w || h != tc.h || d.Pages != 1 {
			t.Fatalf("%s: %d×%d, %d pages", tc.name, w, h, d.Pages)
		}
		p, err := d.Page(ctx, 0)
		if err != nil || p.Bounds().Dx() != tc.w {
			t.Fatalf("%s: page: %v", tc.name, err)
		}
	}
}

func TestALyingTypeIsRefusedBeforeDecoding(t *testing.T) {
	png := encPNG(t, card(8, 8))
	for _, tc := range []struct {
		typ  string
		data []byte
		want error
	}{
		{"image/jpeg", png, ErrMismatch},
		{"application/pdf", png, ErrMismatch},
		{"image/png", []byte("<html>not a picture</html>"), ErrMismatch},
		{"image/gif", []byte("GIF89a"), ErrUnsupported},
		{"", png, ErrUnsupported},
		{"image/png", nil, ErrDamaged},
		{"image/png", append(append([]byte{}, png...), make([]byte, 10<<20)...), ErrTooLarge},
	} {
		_, err := Open(context.Background(), tc.typ, tc.data, Limits{})
		if !errors.Is(err, tc.want) {
			t.Fatalf("%q: %v, want %v kind", tc.typ, err, tc.want.(*Error).Kind)
		}
		if err.Error() == "" {
			t.Fatalf("%q: no words", tc.typ)
		}
	}
}

func TestAPictureOverThePixelLimitIsRefusedFromItsHeader(t *testing.T) {
	// 100000 × 100000 pixels claimed by a 100-byte file: decoding it would
	// ask for 40 GB. DecodeConfig refuses it first.
	huge := pngClaiming(t, 100000, 100000)
	_, err := Open(context.Background(), "image/png", huge, Limits{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v", err)
	}
	// And the limit is the setting: 20 × 20 is over 0.0001 megapixels.
	_, err = Open(context.Background(), "image/jpeg", encJPEG(t, card(20, 20), 80), Limits{MaxPixels: 100})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v", err)
	}
}

func TestTheMegapixelLimitComesFromTheEnvironment(t *testing.T) {
	t.Setenv("REVIEWER_MAX_MEGAPIXELS", "0.5")
	l, err := LimitsFromEnv()
	if err != nil || l.MaxPixels != 500_000 {
		t.Fatalf("%v %v", l, err)
	}
	t.Setenv("REVIEWER_MAX_MEGAPIXELS", "lots")
	if _, err := LimitsFromEnv(); err == nil {
		t.Fatal("a bad value was taken")
	}
	t.Setenv("REVIEWER_MAX_MEGAPIXELS", "")
	if l, _ := LimitsFromEnv(); l.MaxPixels != 60_000_000 || l.PDFTimeout != 10*time.Second || l.PDFMemoryMiB != 512 {
		t.Fatalf("defaults %+v", l)
	}
	t.Setenv("REVIEWER_PDF_RENDERER_CACHE", "off")
	if l, _ := LimitsFromEnv(); l.RendererCache != "" {
		t.Fatalf("cache %q", l.RendererCache)
	}
}

func TestTruncatedAndDamagedFilesAreErrorsNotPictures(t *testing.T) {
	j := encJPEG(t, card(200, 120), 90)
	p := encPNG(t, card(200, 120))
	for _, tc := range []struct {
		typ  string
		data []byte
	}{
		{"image/jpeg", j[:len(j)/2]},
		{"image/jpeg", j[:4]},
		{"image/png", p[:len(p)-30]},
		{"image/png", p[:20]},
		{"image/webp", webp1x1[:20]},
	} {
		d, err := Open(context.Background(), tc.typ, tc.data, Limits{})
		if err == nil || d != nil {
			t.Fatalf("%s of %d bytes opened", tc.typ, len(tc.data))
		}
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("%s: %v", tc.typ, err)
		}
	}
}

func TestFitKeepsProportionsAndColours(t *testing.T) {
	m := card(1600, 1000)
	for _, src := range []image.Image{m, decode(t, encJPEG(t, m, 95)), decode(t, encPNG(t, m))} {
		out, err := Fit(context.Background(), src, 400, 400)
		if err != nil {
			t.Fatal(err)
		}
		if b := out.Bounds(); b.Dx() != 400 || b.Dy() != 250 {
			t.Fatalf("%T: %v", src, b)
		}
		// Inside the photo box: dark blue, averaged.
		r, g, b, _ := out.At(100, 125).RGBA()
		if r>>8 > 70 || g>>8 > 90 || b>>8 < 100 {
			t.Fatalf("%T: photo box is %d,%d,%d", src, r>>8, g>>8, b>>8)
		}
		// The card's background.
		r, g, b, _ = out.At(395, 5).RGBA()
		if r>>8 < 200 || g>>8 < 200 || b>>8 < 170 {
			t.Fatalf("%T: background is %d,%d,%d", src, r>>8, g>>8, b>>8)
		}
	}
	if w, h := FitSize(100, 50, 400, 400); w != 100 || h != 50 {
		t.Fatalf("a small picture was blown up: %d×%d", w, h)
	}
	if w, h := FitSize(1000, 3000, 300, 300); w != 100 || h != 300 {
		t.Fatalf("tall: %d×%d", w, h)
	}
}

func TestFitStopsWhenTheReviewerMovesOn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fit(ctx, card(2000, 2000), 1000, 1000); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	typ := Sniff(b)
	d, err := Open(context.Background(), typ, b, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := d.Page(context.Background(), 0)
	return p
}

// sampledJPEGHeader is the start of a baseline colour JPEG of w × h whose
// luma is sampled lumaHV (0x14: once across, four times down) and chroma
// once: valid JPEG (encoders write 1×4 for a picture turned a quarter),
// but sampling the Go decoder does not read. Its header is whole.
func sampledJPEGHeader(w, h int, lumaHV byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8, 0xFF, 0xDB, 0, 67, 0})
	b.Write(bytes.Repeat([]byte{1}, 64))
	b.Write([]byte{0xFF, 0xC0, 0, 17, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3,
		1, lumaHV, 0, 2, 0x11, 0, 3, 0x11, 0})
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

// A valid JPEG of a kind the decoder does not read (here 1×4 luma
// sampling) is not called damaged: that would tell the reviewer the
// customer's file is broken when it is the console that cannot show it.
func TestAnUnsupportedJPEGIsNotCalledDamaged(t *testing.T) {
	data := sampledJPEGHeader(64, 64, 0x14)
	for _, view := range [][2]int{{0, 0}, {16, 16}} {
		d, err := OpenView(context.Background(), JPEG, data, Limits{}, view[0], view[1])
		if err == nil || d != nil {
			t.Fatalf("opened for %v", view)
		}
		if !errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "damaged") {
			t.Fatalf("opened for %v: %v, want a refusal that says the console cannot show it", view, err)
		}
	}
}
