package document

import (
	"context"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/internal/document/pdftest"
)

// cacheFiles are the files of a cache folder with their size and time.
func cacheFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[strings.TrimPrefix(p, dir)] = fi.ModTime().String() + " " + fi.Mode().String() + " " + strconv.FormatInt(fi.Size(), 10)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// PrepareRenderer compiles the renderer into an empty cache folder, so
// that the first PDF loads the compiled code and compiles nothing (the
// folder is left as it was); a second PrepareRenderer does nothing. A
// first PDF without it writes the compiled code itself (checked first, so
// that the unchanged folder is not a check that cannot fail).
func TestTheRendererIsCompiledBeforeTheFirstPDF(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the PDF renderer (seconds)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	firstPDF := func(lim Limits) {
		t.Helper()
		forgetRenderer()
		defer forgetRenderer()
		d, err := Open(ctx, PDF, pdftest.TwoPagePDF(), lim)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Page(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}

	lim := pdfLimits(t)
	lim.RendererCache = filepath.Join(t.TempDir(), "cache")
	firstPDF(lim)
	if len(cacheFiles(t, lim.RendererCache)) == 0 {
		t.Fatal("a first PDF without the prepared cache wrote no compiled code")
	}

	lim.RendererCache = filepath.Join(t.TempDir(), "cache")
	if err := PrepareRenderer(ctx, lim); err != nil {
		t.Fatal(err)
	}
	prepared := cacheFiles(t, lim.RendererCache)
	var mark bool
	for name := range prepared {
		mark = mark || strings.HasPrefix(filepath.Base(name), "prepared-")
	}
	if !mark || len(prepared) < 2 {
		t.Fatalf("the prepared cache holds %v", prepared)
	}
	if RendererStarted() {
		t.Fatal("preparing left a renderer running")
	}
	firstPDF(lim)
	if now := cacheFiles(t, lim.RendererCache); !sameFiles(prepared, now) {
		t.Fatalf("the first PDF compiled again: %v, then %v", prepared, now)
	}
	if err := PrepareRenderer(ctx, lim); err != nil {
		t.Fatal(err)
	}
	if now := cacheFiles(t, lim.RendererCache); !sameFiles(prepared, now) {
		t.Fatalf("a second prepare compiled again: %v, then %v", prepared, now)
	}

	// Without a cache folder there is nothing to prepare.
	lim.RendererCache = ""
	if err := PrepareRenderer(ctx, lim); err != nil {
		t.Fatal(err)
	}
}

// The first PDF after installing, to its first page drawn: with an empty
// cache folder (the renderer compiles), and with one PrepareRenderer
// filled first (not timed: it ran in the background after the window's
// start). make bench runs both.
func BenchmarkFirstPDFAfterInstall(b *testing.B) {
	for _, prepared := range []bool{false, true} {
		name := "cold"
		if prepared {
			name = "prepared"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				forgetRenderer()
				lim := pdfLimits(b)
				lim.RendererCache = filepath.Join(b.TempDir(), "cache")
				if prepared {
					if err := PrepareRenderer(ctx, lim); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				d, err := Open(ctx, PDF, pdftest.TwoPagePDF(), lim)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := d.Page(ctx, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			forgetRenderer()
		})
	}
}
