package cli_test

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/internal/document/pdftest"
)

// sample is a real file of the document package's testdata (its source
// is in internal/document/testdata/SOURCES.md).
func sample(name string) string {
	return filepath.Join("..", "internal", "document", "testdata", name)
}

func pngSize(t *testing.T, path string) (int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return m.Bounds().Dx(), m.Bounds().Dy()
}

// `reviewer render` draws a local file as the viewer does, and refuses
// what the viewer refuses in its words, with exit 3 and nothing written.
func TestRenderDrawsAFileAsTheViewerDoes(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()

	// A phone's photo, stored landscape with EXIF orientation 6: upright.
	out := filepath.Join(dir, "photo.png")
	o, _ := h.want(0, "render", sample("images/orient6.jpg"), "--out", out)
	if !strings.Contains(o, "144 × 224") || !strings.Contains(o, "shown upright as the photo's EXIF orientation asks (turned 90° clockwise)") {
		t.Fatalf("stdout %q", o)
	}
	if w, hh := pngSize(t, out); w != 144 || hh != 224 {
		t.Fatalf("%d×%d", w, hh)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	// An existing PNG is kept without --force.
	if _, errs := h.want(3, "render", sample("images/orient6.jpg"), "--out", out); !strings.Contains(errs, "exists") {
		t.Fatalf("stderr %q", errs)
	}

	// A webcam's frame, 960 × 720: the first view fits the viewer's first
	// size (1280 × 800), --full is the whole picture.
	full := filepath.Join(dir, "full.png")
	h.want(0, "render", sample("images/mjpeg.jpg"), "--full", "--out", full)
	if w, hh := pngSize(t, full); w != 960 || hh != 720 {
		t.Fatalf("full: %d×%d", w, hh)
	}

	// Refusals: the viewer's words, exit 3, nothing written.
	for _, tc := range []struct{ file, words string }{
		{sample("images/testimgari.jpg"), "reviewer: The console cannot show this JPEG: it is arithmetic-coded"},
		{sample("SOURCES.md"), "reviewer: The console cannot show this kind of file: its first bytes are not those of"},
	} {
		bad := filepath.Join(dir, "refused.png")
		if _, errs := h.want(3, "render", tc.file, "--out", bad); !strings.HasPrefix(errs, tc.words) {
			t.Fatalf("%s: stderr %q", tc.file, errs)
		}
		if _, err := os.Stat(bad); !os.IsNotExist(err) {
			t.Fatalf("%s: a PNG was written: %v", tc.file, err)
		}
	}
}

// A PDF's page N, through the renderer, a page whose font was
// substituted said to be, and a PDF locked with a password
// refused in the viewer's words.
func TestRenderDrawsAPDFPage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the PDF renderer (seconds)")
	}
	h := newHarness(t)
	bin, cache := pdftest.Renderer(t)
	h.env["REVIEWER_PDF_RENDERER"], h.env["REVIEWER_PDF_RENDERER_CACHE"] = bin, cache
	dir := t.TempDir()
	out := filepath.Join(dir, "page.png")
	o, _ := h.want(0, "render", sample("pdfs/annotation-tx3.pdf"), "--page", "1", "--out", out)
	// A US Letter page at 150 dpi (1275 × 1650) fitted to 1280 × 800.
	if w, hh := pngSize(t, out); hh != 800 || w < 610 || w > 625 || !strings.Contains(o, "page 1 of 1") {
		t.Fatalf("%d×%d, stdout %q", w, hh, o)
	}
	if strings.Contains(o, "does not include a font") {
		t.Fatalf("a page in Helvetica is said to have a font substituted: %q", o)
	}
	// Chinese text in a font the PDF does not embed: drawn in the
	// system's, and said.
	o, _ = h.want(0, "render", sample("pdfs/issue8372.pdf"), "--out", filepath.Join(dir, "cjk.png"))
	if !strings.Contains(o, "the PDF does not include a font its text uses") {
		t.Fatalf("stdout %q does not say a font was substituted", o)
	}
	if _, errs := h.want(3, "render", sample("pdfs/libreoffice-writer-password.pdf"), "--out", filepath.Join(dir, "locked.png")); !strings.Contains(errs, "protected by a password") {
		t.Fatalf("stderr %q", errs)
	}
	if _, errs := h.want(2, "render", sample("pdfs/annotation-tx3.pdf"), "--page", "2", "--out", filepath.Join(dir, "p2.png")); !strings.Contains(errs, "has 1 page") {
		t.Fatalf("stderr %q", errs)
	}
}
