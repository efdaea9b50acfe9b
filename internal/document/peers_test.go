package document

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/screenapi"
)

// The speed of the console's first views against the programs a reviewer
// would pick instead, as ratios measured side by side in one run (make
// bench-documents, in make bench): REVIEWER_BENCH_PEERS=1 go test -run
// SpeedAgainstPeers -v ./internal/document/. Each of 3 runs times both
// sides in turn, 5 times each, and takes the ratio of the medians; the
// line gives the ratios' min/median/max, the target, and the load. A
// missed target is printed MISSED with its figure; the first view of the
// 24-megapixel photo is judged (its miss fails the test, and so make
// bench-documents), the PDFs' are not yet (the figures depend on the
// machine's load): the first views' own targets are
// scripts/firstview-check.sh's.

// photo24 is a 24-megapixel photo-like baseline JPEG of about 9.5 MB (6000
// × 4000, a card with sensor noise), made once.
func photo24(t testing.TB) []byte {
	const w, h = 6000, 4000
	m := card(w, h)
	r := rand.New(rand.NewSource(2))
	for i := range m.Pix {
		if i%4 != 3 {
			m.Pix[i] = uint8(min(255, max(0, int(m.Pix[i])+r.Intn(60)-30)))
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 88}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// scanPDF is a one-page A4 PDF holding a scanned page: a photo-like JPEG
// at 150 dpi (1240 × 1754), as a customer's scanned ID or statement is.
func scanPDF(t testing.TB) []byte {
	const w, h = 1240, 1754
	m := card(w, h)
	r := rand.New(rand.NewSource(3))
	for i := range m.Pix {
		if i%4 != 3 {
			m.Pix[i] = uint8(min(255, max(0, int(m.Pix[i])+r.Intn(40)-20)))
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	content := "q 595 0 0 842 0 0 cm /Im0 Do Q"
	return screenapi.PDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream", w, h, b.Len(), b.String()),
	})
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

// peerRatio runs 3 rounds of ours and theirs in turn, 5 times each, and
// prints the ratio of the medians: min/median/max of the 3 rounds. A
// judged ratio whose median misses its target fails the test.
func peerRatio(t *testing.T, what string, target float64, judged bool, ours, theirs func() error) {
	t.Helper()
	var ratios []float64
	var lastOurs, lastTheirs time.Duration
	for round := 0; round < 3; round++ {
		var a, b []time.Duration
		for i := 0; i < 5; i++ {
			t0 := time.Now()
			if err := ours(); err != nil {
				t.Fatalf("%s, ours: %v", what, err)
			}
			a = append(a, time.Since(t0))
			t0 = time.Now()
			if err := theirs(); err != nil {
				t.Fatalf("%s, the peer: %v", what, err)
			}
			b = append(b, time.Since(t0))
		}
		lastOurs, lastTheirs = median(a), median(b)
		ratios = append(ratios, float64(lastOurs)/float64(lastTheirs))
	}
	slices.Sort(ratios)
	verdict := "ok"
	if ratios[1] > target {
		verdict = "MISSED"
	}
	fmt.Printf("%s: %.2fx / %.2fx / %.2fx (min/median/max of 3 runs; last run %v against %v); target <= %.1fx: %s (load average %s)\n",
		what, ratios[0], ratios[1], ratios[2], lastOurs.Round(time.Millisecond), lastTheirs.Round(time.Millisecond), target, verdict, loadAverage())
	if judged && verdict != "ok" {
		t.Errorf("%s: median ratio %.2fx, target <= %.1fx", what, ratios[1], target)
	}
}

func TestSpeedAgainstPeers(t *testing.T) {
	if os.Getenv("REVIEWER_BENCH_PEERS") == "" {
		t.Skip("a measurement: REVIEWER_BENCH_PEERS=1 (make bench-documents)")
	}
	for _, p := range []string{"djpeg", "pdftoppm"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed (make deps-bench)", p)
		}
	}
	dir := t.TempDir()
	photo := photo24(t)
	photoFile := filepath.Join(dir, "photo.jpg")
	if err := os.WriteFile(photoFile, photo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The first view at 1/8, both: the console's check, decode at 1/8 and
	// fit to the 750 × 500 it gives, as the viewer's first view is made;
	// djpeg's decode at 1/8 to RGB, written to /dev/null.
	peerRatio(t, fmt.Sprintf("first view of a 24-megapixel baseline photo (%.1f MB) at 1/8, against djpeg -scale 1/8", float64(len(photo))/1e6), 1.5, true,
		func() error {
			d, err := OpenView(context.Background(), JPEG, photo, Limits{}, 750, 500)
			if err != nil {
				return err
			}
			if d.Scale() != 8 {
				return fmt.Errorf("decoded at 1/%d", d.Scale())
			}
			_, err = d.View(context.Background(), 0, 750, 500)
			return err
		},
		func() error {
			return exec.Command("djpeg", "-scale", "1/8", "-outfile", os.DevNull, photoFile).Run()
		})

	// A PDF's first page at 150 dpi, both: the console opens the PDF (its
	// page count) and draws page 1 in its renderer, started once for the
	// session as the window does; pdftoppm starts, draws page 1 and writes
	// it.
	forgetRenderer()
	defer forgetRenderer()
	lim := pdfLimits(t)
	pdf := scanPDF(t)
	pdfFile := filepath.Join(dir, "scan.pdf")
	if err := os.WriteFile(pdfFile, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	firstPage := func(data []byte) func() error {
		return func() error {
			d, err := Open(ctx, PDF, data, lim)
			if err != nil {
				return err
			}
			_, err = d.Page(ctx, 0)
			return err
		}
	}
	if err := firstPage(pdf)(); err != nil { // the renderer started, as after the window's first PDF
		t.Fatal(err)
	}
	poppler := func(file string) func() error {
		return func() error {
			return exec.Command("pdftoppm", "-r", "150", "-f", "1", "-l", "1", "-singlefile", file, filepath.Join(dir, "out")).Run()
		}
	}
	peerRatio(t, fmt.Sprintf("a PDF's first page (a scanned A4 page, %.1f MB) at 150 dpi, against pdftoppm -r 150", float64(len(pdf))/1e6), 2.0, false, firstPage(pdf), poppler(pdfFile))
	form := filepath.Join("testdata", "pdfs", "annotation-tx3.pdf")
	peerRatio(t, "a PDF's first page (pdf.js's annotation-tx3.pdf, a form) at 150 dpi, against pdftoppm -r 150", 2.0, false, firstPage(readSample(t, "pdfs/annotation-tx3.pdf")), poppler(form))
}

// BenchmarkFirstView24 is the first view of photo24 at 1/8, for profiles
// (go test -cpuprofile).
func BenchmarkFirstView24(b *testing.B) {
	photo := photo24(b)
	b.SetBytes(int64(len(photo)))
	for b.Loop() {
		d, err := OpenView(context.Background(), JPEG, photo, Limits{}, 750, 500)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.View(context.Background(), 0, 750, 500); err != nil {
			b.Fatal(err)
		}
	}
}
