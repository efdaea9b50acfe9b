package document

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMeasurePDFRenderer says what the PDF renderer costs the first time a
// PDF is looked at (REVIEWER_MEASURE=1; the README quotes it).
func TestMeasurePDFRenderer(t *testing.T) {
	if os.Getenv("REVIEWER_MEASURE") != "1" {
		t.Skip("REVIEWER_MEASURE=1 measures the PDF renderer's start")
	}
	ctx := context.Background()
	rss0 := rss(t)
	t0 := time.Now()
	d, err := Open(ctx, PDF, twoPagePDF(), Limits{RendererCache: os.Getenv("REVIEWER_MEASURE_CACHE")})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Since(t0)
	t1 := time.Now()
	if _, err := d.Page(ctx, 0); err != nil {
		t.Fatal(err)
	}
	page := time.Since(t1)
	t2 := time.Now()
	if _, err := d.Page(ctx, 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("first PDF opened (renderer start + page count) in %v; page 1 drawn in %v, page 2 in %v; RSS %s -> %s",
		start.Round(time.Millisecond), page.Round(time.Millisecond), time.Since(t2).Round(time.Millisecond), rss0, rss(t))
}

func rss(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return "?"
}
