package document

import (
	"context"
	"fmt"
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
	lim := pdfLimits(t)
	lim.RendererCache = os.Getenv("REVIEWER_MEASURE_CACHE")
	forgetRenderer()
	defer forgetRenderer()
	rss0 := rss("self", "VmRSS:")
	t0 := time.Now()
	d, err := Open(ctx, PDF, twoPagePDF(), lim)
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
	renderer.mu.Lock()
	pid := renderer.child.cmd.Process.Pid
	renderer.mu.Unlock()
	t.Logf("first PDF opened (renderer start + page count) in %v; page 1 drawn in %v, page 2 in %v; the console's RSS %s -> %s; the renderer's peak RSS %s",
		start.Round(time.Millisecond), page.Round(time.Millisecond), time.Since(t2).Round(time.Millisecond), rss0, rss("self", "VmRSS:"), rss(fmt.Sprint(pid), "VmHWM:"))
}

func rss(pid, field string) string {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field) {
			return strings.TrimSpace(strings.TrimPrefix(l, field))
		}
	}
	return "?"
}
