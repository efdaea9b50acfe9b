package cli_test

import (
	"bytes"
	"hash/crc32"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/internal/document/pdftest"
	"github.com/trustscreen/reviewer/screenapi"
)

// A replacement the service turned away keeps the customer's file: the
// reviewer uploads it again with one command, or discards it.
func TestReplaceAgainUsesTheKeptFile(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("DECODE_FAILED")
	scan := filepath.Join(h.dir, "scan.png")
	if err := os.WriteFile(scan, screenapi.Scan(2<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPReplacement, Times: 1})
	h.want(6, "replace", id, scan)
	if out, _ := h.want(0, "item", id); !strings.Contains(out, "kept file: scan.png") || !strings.Contains(out, "--again") {
		t.Fatalf("item does not say the file is kept:\n%s", out)
	}
	if err := os.Remove(scan); err != nil { // the reviewer no longer has it at hand
		t.Fatal(err)
	}
	out, _ := h.want(0, "replace", id, "--again")
	if !strings.Contains(out, "replacement") || len(h.srv.Uploads(id)) != 1 {
		t.Fatalf("again: %q, uploads %d", out, len(h.srv.Uploads(id)))
	}
	if _, errs := h.want(3, "replace", id, "--again"); !strings.Contains(errs, "no kept file") {
		t.Fatalf("nothing kept any more: %s", errs)
	}
	h.want(2, "replace", id, "--again", "--discard")
	h.want(2, "resubmit", id, "--again")

	other := h.srv.FindCode("UNSUPPORTED_MEDIA_TYPE")
	if err := os.WriteFile(scan, screenapi.Scan(3<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPReplacement, Times: 1})
	h.want(6, "replace", other, scan)
	if out, _ := h.want(0, "replace", other, "--discard"); !strings.Contains(out, "discarded") {
		t.Fatalf("discard: %q", out)
	}
	h.want(3, "replace", other, "--again")
}

// A bad retention is refused at start, before the cache is opened.
func TestABadKeptFileRetentionIsRefusedAtStart(t *testing.T) {
	h := newHarness(t)
	h.env["REVIEWER_KEPT_FILE_RETENTION"] = "-1h"
	if _, errs := h.want(2, "items"); !strings.Contains(errs, "REVIEWER_KEPT_FILE_RETENTION") {
		t.Fatalf("stderr %q", errs)
	}
	if _, err := os.Stat(h.env["REVIEWER_DB"]); !os.IsNotExist(err) {
		t.Fatalf("the cache was opened before the setting was checked: %v", err)
	}
}

// photo is a sound JPEG of noise, as a phone writes one, and the length of
// its header (its tables, frame and scan header, up to the scan's data).
func photo(t *testing.T) (data []byte, header int) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 640, 480))
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	sos := bytes.Index(b.Bytes(), []byte{0xFF, 0xDA})
	return b.Bytes(), sos + 2 + int(b.Bytes()[sos+2])<<8 | int(b.Bytes()[sos+3])
}

// Rule 8, nothing paid for nothing: each of these files was uploaded, and
// the service ran a paid analysis of it, while the console's own viewer
// called it damaged or refused it. replace now runs the viewer's checks
// first: refused in the viewer's words (exit 3), nothing queued, no call.
func TestAReplacementTheViewerWouldRefuseIsNotPaidFor(t *testing.T) {
	h := newHarness(t)
	h.env["REVIEWER_PDF_RENDERER"], h.env["REVIEWER_PDF_RENDERER_CACHE"] = pdftest.Renderer(t)
	h.want(0, "sync")
	id := h.srv.FindCode("DECODE_FAILED")
	sound, header := photo(t)
	noise := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	huge := screenapi.Scan(1 << 10) // its header made to say 60000 × 60000, with its checksum
	ihdr := huge[8+8 : 8+8+13]
	copy(ihdr, []byte{0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60})
	sum := crc32.ChecksumIEEE(huge[8+4 : 8+8+13])
	huge[8+8+13], huge[8+8+14], huge[8+8+15], huge[8+8+16] = byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum)
	for _, tc := range []struct {
		name  string
		data  []byte
		words string
	}{
		{"stub.jpg", []byte{0xFF, 0xD8, 0xFF, 0x00}, "cut short"},
		{"stub.pdf", []byte("%PDF-"), "damaged: it cannot be opened as a PDF"},
		{"half.jpg", sound[:len(sound)/2], "the file is cut short: ask the customer for the whole file"},
		{"huge.png", huge, "Refused: the picture is 60000 × 60000 pixels"},
		{"noise.jpg", append(sound[:header:header], noise...), "INVALID_FILE"},
	} {
		p := filepath.Join(h.dir, tc.name)
		if err := os.WriteFile(p, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, errs := h.want(3, "replace", id, p)
		if !strings.Contains(strings.ToLower(errs), strings.ToLower(tc.words)) || !strings.Contains(errs, "INVALID_FILE") {
			t.Errorf("%s: %s, want INVALID_FILE and %q", tc.name, errs, tc.words)
		}
		// Her word that she uploads it unchecked does not send a bad file.
		h.want(3, "replace", id, p, "--unchecked")
	}
	if n := h.srv.Arrivals(screenapi.EPReplacement); n != 0 {
		t.Fatalf("%d uploads reached the service", n)
	}
	if out, _ := h.want(0, "outbox", "--json"); strings.Contains(out, "replacement") {
		t.Fatalf("something was queued: %s", out)
	}
	good := filepath.Join(h.dir, "whole.jpg")
	os.WriteFile(good, sound, 0o600)
	h.want(0, "replace", id, good)
	if n := len(h.srv.Uploads(id)); n != 1 {
		t.Fatalf("the sound photo: %d uploads", n)
	}
}

// A sound file the console cannot check (a JPEG sampling its decoder does
// not read, testdata/README.md) is not called damaged: it is refused until
// the reviewer says she uploads it unchecked, and then it goes, once.
func TestAFileTheConsoleCannotCheckGoesOnlyWhenSheSaysSo(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("DECODE_FAILED")
	p, err := filepath.Abs(filepath.Join("testdata", "sampled-1x4.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	_, errs := h.want(3, "replace", id, p)
	if !strings.Contains(errs, "FILE_UNCHECKED") || strings.Contains(errs, "damaged") || !strings.Contains(errs, "--unchecked") {
		t.Fatalf("%s, want FILE_UNCHECKED naming --unchecked, never 'damaged'", errs)
	}
	if n := h.srv.Arrivals(screenapi.EPReplacement); n != 0 {
		t.Fatalf("%d uploads before she said so", n)
	}
	h.want(0, "replace", id, p, "--unchecked")
	if n := len(h.srv.Uploads(id)); n != 1 {
		t.Fatalf("%d uploads after she said so", n)
	}
	h.want(2, "resubmit", id, "--unchecked")
}
