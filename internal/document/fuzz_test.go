package document

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// seeds are the fuzz corpus: small valid files of each kind, and the
// hostile ones the tests name. TestWriteSeedCorpus writes them to
// testdata/fuzz/FuzzOpen (committed) when REVIEWER_WRITE_SEEDS=1.
func seeds(t testing.TB) map[string]struct {
	typ  string
	data []byte
} {
	j := encJPEG(t, card(24, 16), 80)
	p := encPNG(t, card(12, 8))
	return map[string]struct {
		typ  string
		data []byte
	}{
		"jpeg":           {JPEG, j},
		"jpeg-truncated": {JPEG, j[:len(j)/2]},
		"png":            {PNG, p},
		"png-huge":       {PNG, pngClaiming(t, 70000, 70000)},
		"webp":           {WebP, webp1x1},
		"png-as-jpeg":    {JPEG, p},
		"pdf-header":     {PDF, []byte("%PDF-1.4\n")},
	}
}

func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("REVIEWER_WRITE_SEEDS") != "1" {
		t.Skip("REVIEWER_WRITE_SEEDS=1 writes testdata/fuzz/FuzzOpen")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range seeds(t) {
		body := fmt.Sprintf("go test fuzz v1\nstring(%q)\n[]byte(%q)\n", s.typ, s.data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzOpen: whatever the bytes and the declared type, opening and scaling
// returns a picture within the limit or a document error, never a panic
// (and never a picture for a type the bytes do not start with). A PDF is
// checked only as far as its type: the renderer is tested on its own.
func FuzzOpen(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s.typ, s.data)
	}
	lim := Limits{MaxPixels: 4_000_000}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		checked, err := Check(typ, data)
		if err != nil {
			if _, ok := AsError(err); !ok {
				t.Fatalf("not a document error: %v", err)
			}
			return
		}
		if Sniff(data) != checked {
			t.Fatalf("%q accepted as %q", Sniff(data), checked)
		}
		if checked == PDF {
			return
		}
		d, err := Open(context.Background(), typ, data, lim)
		// Opened for a small view (a JPEG reduced), the same answer.
		r, rerr := OpenView(context.Background(), typ, data, lim, 16, 16)
		if (err == nil) != (rerr == nil) {
			t.Fatalf("opened whole: %v; for a view: %v", err, rerr)
		}
		if err != nil {
			if _, ok := AsError(err); !ok {
				t.Fatalf("not a document error: %v", err)
			}
			if _, ok := AsError(rerr); !ok {
				t.Fatalf("not a document error: %v", rerr)
			}
			if errors.Is(err, ErrMismatch) {
				t.Fatalf("mismatch after Check passed: %v", err)
			}
			return
		}
		if v, err := r.View(context.Background(), 0, 16, 16); err != nil || v.Bounds().Dx() > 16 || v.Bounds().Dy() > 16 {
			t.Fatalf("view: %v", err)
		}
		if rw, rh := r.Size(); rw*rh > 0 {
			rp, err := r.Page(context.Background(), 0)
			if w, h := d.Size(); err != nil || rp.Bounds().Dx() != w || rp.Bounds().Dy() != h || rw != w || rh != h {
				t.Fatalf("the full resolution of a reduced open: %v", err)
			}
		}
		w, h := d.Size()
		if int64(w)*int64(h) > lim.MaxPixels || w <= 0 || h <= 0 {
			t.Fatalf("%d×%d opened", w, h)
		}
		p, err := d.Page(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Fit(context.Background(), p, 64, 64)
		if err != nil || out.Bounds().Dx() > 64 || out.Bounds().Dy() > 64 {
			t.Fatalf("fit: %v %v", out.Bounds(), err)
		}
	})
}
