package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/screenapi"
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

// waitUntil waits for cond, checked as the service's counters move; a
// generous limit for -race on loaded cores.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		runtime.Gosched()
		time.Sleep(2 * time.Millisecond)
	}
}

// TestBulkRunSummaryCountsWhatCancelRunWithdrew: a run whose rest was
// withdrawn by cancel-run (from another terminal) while its first send was
// in flight says how many were cancelled, so that its counts add up.
func TestBulkRunSummaryCountsWhatCancelRunWithdrew(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	out, _ := h.want(0, "items", "--code", "CLASSIFIER_TIMEOUT", "--json")
	var items []struct{ ID string }
	if err := json.Unmarshal([]byte(out), &items); err != nil || len(items) < 3 {
		t.Fatalf("items: %v (%d)", err, len(items))
	}
	var releases []func()
	for _, it := range items {
		releases = append(releases, h.srv.Hold(it.ID))
	}
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := h.run("resubmit", "--retryable", "--code", "CLASSIFIER_TIMEOUT", "--yes", "--concurrency", "1")
		done <- result{code, out, errs}
	}()
	waitUntil(t, "the first send of the run", func() bool { return h.srv.Arrivals(screenapi.EPResubmit) == 1 })
	cancelled, _ := h.want(0, "cancel-run", "1")
	want := fmt.Sprintf("bulk run 1: %d actions not yet sent cancelled", len(items)-1)
	if !strings.Contains(cancelled, want) {
		t.Fatalf("cancel-run: %s", cancelled)
	}
	for _, release := range releases {
		release()
	}
	r := <-done
	if r.code != cli.ExitOK || h.srv.Arrivals(screenapi.EPResubmit) != 1 {
		t.Fatalf("run: exit %d, %d sent\n%s\n%s", r.code, h.srv.Arrivals(screenapi.EPResubmit), r.out, r.err)
	}
	want = fmt.Sprintf("bulk run 1: 1 done, 0 refused by the API, 0 unknown, 0 still queued, %d cancelled", len(items)-1)
	if !strings.Contains(r.out, want) {
		t.Fatalf("summary, want %q:\n%s", want, r.out)
	}
}
