package document

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// jpegHeader is a JPEG's bytes up to the start of its first scan's data
// (its tables, frame and scan header): what noise behind a header keeps.
func jpegHeader(t *testing.T, b []byte) []byte {
	t.Helper()
	i := bytes.Index(b, []byte{0xFF, 0xDA})
	if i < 0 {
		t.Fatal("no scan in the JPEG")
	}
	n := int(b[i+2])<<8 | int(b[i+3])
	return b[: i+2+n : i+2+n]
}

// The files a hostile run uploaded, and the service analysed at a cost,
// while the viewer called each damaged or refused it: Inspect, which an
// upload runs before anything is queued, refuses them in the viewer's
// words, as the file's fault (not one it merely could not check).
func TestInspectRefusesWhatTheViewerRefuses(t *testing.T) {
	photo := noisyCard(t, 640, 480)
	noise := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	lim := pdfLimits(t)
	for _, tc := range []struct {
		name  string
		data  []byte
		words string
	}{
		{"four bytes of a JPEG", []byte{0xFF, 0xD8, 0xFF, 0x00}, "cut short"},
		{"five bytes of a PDF", []byte("%PDF-"), "damaged"},
		{"a JPEG cut in half", photo[:len(photo)/2], "The file is cut short: ask the customer for the whole file."},
		{"a PNG that says 60000 × 60000", pngClaiming(t, 60000, 60000), "Refused: the picture is 60000 × 60000 pixels"},
		{"noise behind a JPEG header", append(jpegHeader(t, photo), noise...), "The file is "},
	} {
		_, err := Inspect(context.Background(), tc.data, lim)
		if err == nil || CannotCheck(err) || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s: %v (cannot check: %v), want a refusal saying %q", tc.name, err, CannotCheck(err), tc.words)
		}
		// The viewer says the same of it.
		if _, verr := Open(context.Background(), Sniff(tc.data), tc.data, lim); verr == nil || verr.Error() != err.Error() {
			t.Errorf("%s: the viewer says %v, the upload's check %v", tc.name, verr, err)
		}
	}
	for name, data := range map[string][]byte{"a JPEG": photo, "a PNG": encPNG(t, card(64, 40)), "a WebP": webp1x1, "a PDF": twoPagePDF()} {
		if mt, err := Inspect(context.Background(), data, lim); err != nil || mt != Sniff(data) {
			t.Errorf("%s: %q %v, want it passed", name, mt, err)
		}
	}
}

// A sound file of a kind the viewer does not decode is not the file's
// fault: Inspect says the console cannot check it, so that the reviewer
// may still send it knowing that.
func TestInspectTellsAFileItCannotCheck(t *testing.T) {
	_, err := Inspect(context.Background(), sampledJPEGHeader(64, 64, 0x14), Limits{})
	if !CannotCheck(err) || strings.Contains(err.Error(), "damaged") {
		t.Fatalf("%v, want 'cannot check'", err)
	}
	// No renderer: a PDF is not judged either way.
	lim := fakeRenderer(t, "exit 1")
	lim.Renderer += "-missing"
	forgetRenderer()
	if _, err := Inspect(context.Background(), twoPagePDF(), lim); !CannotCheck(err) || !errors.Is(err, ErrNoRenderer) {
		t.Fatalf("no renderer: %v", err)
	}
	// The asker leaving is no verdict on the file.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Inspect(ctx, encJPEG(t, card(64, 40), 90), Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
