// Package pdftest is for tests only: it builds the PDF renderer
// (cmd/reviewer-pdf) once per test binary, and writes a two-page PDF whose
// pages tell apart by their colour. internal/document's tests and the
// window's (ui) share it.
//
// It does not import internal/document: that package's own tests import
// it, and a test's imports may not lead back to the package under test.
package pdftest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

// rendererName is internal/document.RendererName (not imported: see the
// package comment).
const rendererName = "reviewer-pdf"

var (
	once sync.Once
	dir  string
	bin  string
	err  error
)

// Renderer builds reviewer-pdf (once per test binary, with the shared
// build cache, without -race: it is a child process) into a folder of its
// own, and returns its path and a compiled-code cache folder beside it
// that the binary's tests share. A failed build fails the test: the
// renderer can always be built where the tests run.
func Renderer(t testing.TB) (path, cache string) {
	t.Helper()
	once.Do(func() {
		dir, err = os.MkdirTemp("", "reviewer-pdf-test-")
		if err != nil {
			return
		}
		bin = filepath.Join(dir, rendererName)
		cmd := exec.Command("go", "build", "-o", bin, "github.com/trustscreen/reviewer/cmd/reviewer-pdf")
		if out, e := cmd.CombinedOutput(); e != nil {
			err = fmt.Errorf("go build reviewer-pdf: %v: %s", e, out)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return bin, filepath.Join(dir, "cache")
}

// Cleanup removes what Renderer built; TestMain calls it after the run.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// TwoPagePDF is a valid PDF of two A6 pages: page 1 has a blue square,
// page 2 a red one, each at the page's lower left quarter (the rest is
// white).
func TwoPagePDF() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents 6 0 R >>",
		stream("0 0 1 rg 0 0 149 210 re f"),
		stream("1 0 0 rg 0 0 149 210 re f"),
	}
	return screenapi.PDF(objs)
}

func stream(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}
