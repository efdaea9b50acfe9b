package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

// A replacement the service turned away keeps the customer's file: the
// reviewer uploads it again with one command, or discards it.
func TestReplaceAgainUsesTheKeptFile(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("DECODE_FAILED")
	scan := filepath.Join(h.dir, "scan.pdf")
	if err := os.WriteFile(scan, []byte("%PDF-1.7\n% the customer's new scan"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPReplacement, Times: 1})
	h.want(6, "replace", id, scan)
	if out, _ := h.want(0, "item", id); !strings.Contains(out, "kept file: scan.pdf") || !strings.Contains(out, "--again") {
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
	if err := os.WriteFile(scan, []byte("%PDF-1.7\n% another scan"), 0o600); err != nil {
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
