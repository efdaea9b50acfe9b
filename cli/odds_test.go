package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
)

// TestExportIntoAMissingFolder: the reviewer is told that the folder does
// not exist, by its name, as a usage error; never the name of the temporary
// file the export would have gone through.
func TestExportIntoAMissingFolder(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	dir := filepath.Join(h.dir, "reports", "2026")
	_, errs := h.want(2, "export", "--csv", filepath.Join(dir, "out.csv"))
	if !strings.Contains(errs, dir) || !strings.Contains(errs, "does not exist") || strings.Contains(errs, ".tmp") {
		t.Fatalf("export into a missing folder: %s", errs)
	}
}

// TestBadBulkConcurrencyVariableIsNamed: a bad REVIEWER_BULK_CONCURRENCY is
// refused with the variable's name and its value, not as a flag nobody gave.
func TestBadBulkConcurrencyVariableIsNamed(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	for _, v := range []string{"abc", "99", "0"} {
		h.env["REVIEWER_BULK_CONCURRENCY"] = v
		_, errs := h.want(2, "resubmit", "--retryable", "--dry-run")
		if !strings.Contains(errs, "REVIEWER_BULK_CONCURRENCY") || !strings.Contains(errs, `"`+v+`"`) || strings.Contains(errs, "--concurrency "+v) || strings.Contains(errs, "--concurrency 0") {
			t.Fatalf("REVIEWER_BULK_CONCURRENCY=%s: %s", v, errs)
		}
	}
	// The flag given on the command line is what counts.
	h.env["REVIEWER_BULK_CONCURRENCY"] = "abc"
	h.want(0, "resubmit", "--retryable", "--dry-run", "--concurrency", "2")
	_, errs := h.want(2, "resubmit", "--retryable", "--dry-run", "--concurrency", "17")
	if !strings.Contains(errs, "--concurrency 17") {
		t.Fatalf("--concurrency 17: %s", errs)
	}
	delete(h.env, "REVIEWER_BULK_CONCURRENCY")
	h.want(0, "resubmit", "--retryable", "--dry-run")
}

// TestDevNullIsNotATerminal: /dev/null on stdin is a character device but
// no terminal: nobody can answer there, so a bulk action without --yes is
// refused (exit 2), as with any other stdin that is not a terminal.
func TestDevNullIsNotATerminal(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var out, errb bytes.Buffer
	code := cli.Run([]string{"resubmit", "--retryable"}, cli.Env{Stdout: &out, Stderr: &errb, Stdin: null,
		Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok }})
	if code != cli.ExitUsage || !strings.Contains(errb.String(), "--yes") || strings.Contains(out.String(), "Go ahead?") {
		t.Fatalf("stdin /dev/null: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
}
