package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

// leftovers lists what is in dir besides the names given.
func leftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
next:
	for _, e := range ents {
		for _, k := range keep {
			if e.Name() == k {
				continue next
			}
		}
		out = append(out, e.Name())
	}
	return out
}

// `reviewer file` writes the document, the newest by default, 0600; it
// refuses an existing file without --force and a link always.
func TestFileWritesTheDocument(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	const id = "itm_0001_01"
	want, mt, _ := h.srv.File(id, 1)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "doc.jpg")

	if o, _ := h.want(0, "file", id, "--out", out); !strings.Contains(o, "wrote version 1 of "+id) || !strings.Contains(o, mt) {
		t.Fatalf("stdout %q", o)
	}
	got, err := os.ReadFile(out)
	fi, _ := os.Stat(out)
	if err != nil || !bytes.Equal(got, want) || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v, equal %v, mode %v", err, bytes.Equal(got, want), fi.Mode())
	}

	// An existing file is kept without --force, replaced with it.
	if err := os.WriteFile(out, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs := h.want(3, "file", id, "--out", out); !strings.Contains(errs, "exists") {
		t.Fatalf("stderr %q", errs)
	}
	if b, _ := os.ReadFile(out); string(b) != "mine" {
		t.Fatal("an existing file was overwritten without --force")
	}
	h.want(0, "file", id, "--version", "1", "--out", out, "--force")
	if b, _ := os.ReadFile(out); !bytes.Equal(b, want) {
		t.Fatal("--force did not replace the file")
	}

	// A symbolic link is never followed, --force or not.
	target := filepath.Join(outDir, "elsewhere")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(outDir, "link.jpg")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"file", id, "--out", link}, {"file", id, "--out", link, "--force"}} {
		if _, errs := h.want(3, args...); !strings.Contains(errs, "symbolic link") {
			t.Fatalf("%v: %q", args, errs)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Fatal("the link was followed")
	}
	// A named pipe is refused before anything opens it.
	fifo := filepath.Join(outDir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	h.want(3, "file", id, "--out", fifo, "--force")
	if left := leftovers(t, outDir, "doc.jpg", "elsewhere", "link.jpg", "pipe"); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}

	// Usage.
	h.want(2, "file", id)
	h.want(2, "file", "--out", out)
	h.want(2, "file", id, "--out", out, "--version", "-1")
	h.want(2, "file", id, "--out", filepath.Join(outDir, "no-such-folder", "x.jpg"))
}

// After a replacement, the newest version is the default, and the first
// can still be asked for.
func TestFileVersions(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("DECODE_FAILED")
	scan, _, _ := h.srv.File("itm_0001_03", 1)
	in := filepath.Join(h.dir, "scan.jpg")
	if err := os.WriteFile(in, scan, 0o600); err != nil {
		t.Fatal(err)
	}
	h.want(0, "replace", id, in)
	first, _, _ := h.srv.File(id, 1)
	outDir := t.TempDir()
	h.want(0, "file", id, "--out", filepath.Join(outDir, "newest"))
	h.want(0, "file", id, "--version", "1", "--out", filepath.Join(outDir, "first"))
	if b, _ := os.ReadFile(filepath.Join(outDir, "newest")); !bytes.Equal(b, scan) {
		t.Fatal("the newest is not the replacement")
	}
	if b, _ := os.ReadFile(filepath.Join(outDir, "first")); !bytes.Equal(b, first) {
		t.Fatal("version 1 is not the first file")
	}
	if _, errs := h.want(6, "file", id, "--version", "3", "--out", filepath.Join(outDir, "third")); !strings.Contains(errs, "no version 3") {
		t.Fatalf("stderr %q", errs)
	}
	if left := leftovers(t, outDir, "newest", "first"); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// Damaged, offline, or from a 1.0 service: one line, nothing written,
// nothing left behind.
func TestFileRefusals(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	const id = "itm_0001_01"
	outDir := t.TempDir()
	out := filepath.Join(outDir, "doc")
	for _, f := range []screenapi.Fault{
		{Kind: screenapi.FaultWrongType, Endpoint: screenapi.EPFile, Times: 1},
		{Kind: screenapi.FaultTruncated, Endpoint: screenapi.EPFile, Times: 1},
		{Kind: screenapi.FaultOversized, Endpoint: screenapi.EPFile, Times: 1},
	} {
		h.srv.SetFault(f)
		if _, errs := h.want(7, "file", id, "--out", out); !strings.Contains(errs, "the file is damaged") {
			t.Fatalf("%s: %q", f.Kind, errs)
		}
		if left := leftovers(t, outDir); len(left) != 0 {
			t.Fatalf("%s left behind: %v", f.Kind, left)
		}
	}
	h.srv.Refuse()
	if _, errs := h.want(7, "file", id, "--out", out); !strings.Contains(errs, "offline and not kept") {
		t.Fatalf("offline: %q", errs)
	}
	if left := leftovers(t, outDir); len(left) != 0 {
		t.Fatalf("offline left behind: %v", left)
	}

	srv, ana, _ := teamHarnesses(t, screenapi.Version10)
	if _, errs := ana.want(3, "file", id, "--out", out); !strings.Contains(errs, "does not offer documents") {
		t.Fatalf("1.0: %q", errs)
	}
	if n := srv.Arrivals(screenapi.EPFile); n != 0 || len(leftovers(t, outDir)) != 0 {
		t.Fatalf("1.0: %d file requests", n)
	}
}

// A bad REVIEWER_DOCUMENT_CACHE is refused at start.
func TestABadDocumentCacheIsRefusedAtStart(t *testing.T) {
	h := newHarness(t)
	for _, v := range []string{"lots", "1024", "99999999999"} {
		h.env["REVIEWER_DOCUMENT_CACHE"] = v
		if _, errs := h.want(2, "items"); !strings.Contains(errs, "REVIEWER_DOCUMENT_CACHE") {
			t.Fatalf("%s: %q", v, errs)
		}
	}
	h.env["REVIEWER_DOCUMENT_CACHE"] = "20971520"
	h.want(0, "items")
}

// The limits of decoding a document are settings like the others: a bad
// value stops the start and names its variable.
func TestBadDocumentLimitsAreRefusedAtStart(t *testing.T) {
	h := newHarness(t)
	for k, v := range map[string]string{"REVIEWER_MAX_MEGAPIXELS": "lots", "REVIEWER_PDF_TIMEOUT": "-1s", "REVIEWER_PDF_MEMORY_MIB": "8", "REVIEWER_PDF_PREPARE_AFTER": "soon"} {
		h.env[k] = v
		if _, errs := h.want(2, "items"); !strings.Contains(errs, k) {
			t.Fatalf("%s=%s: %q", k, v, errs)
		}
		delete(h.env, k)
	}
	h.env["REVIEWER_MAX_MEGAPIXELS"] = "12"
	h.want(0, "items")
}
