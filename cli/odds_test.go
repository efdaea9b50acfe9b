package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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

// lineWriter is a stderr that tells when a line with want was written.
type lineWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestFlushesAtOnceExitZeroWhenAnotherProcessSentTheirActions: six flushes
// on one cache at once. The first sends the one queued action (held at the
// service); the five others find it being sent by another process: they
// wait for its outcome, say that another process sent it, done, and exit 0,
// not 4. One analysis is paid.
func TestFlushesAtOnceExitZeroWhenAnotherProcessSentTheirActions(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	h.srv.Refuse()
	h.want(cli.ExitQueued, "resubmit", id)
	if err := h.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	release := h.srv.Hold(id)
	defer release()

	type result struct {
		code int
		out  string
		errs *lineWriter
	}
	flush := func(results chan<- result, errs *lineWriter) {
		var out bytes.Buffer
		code := cli.Run([]string{"flush"}, cli.Env{Stdout: &out, Stderr: errs,
			Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok }})
		results <- result{code, out.String(), errs}
	}
	first := make(chan result, 1)
	go flush(first, &lineWriter{want: "\n", seen: make(chan struct{})})
	waitUntil(t, "the first flush's send", func() bool { return h.srv.Arrivals(screenapi.EPResubmit) == 1 })

	const others = 5
	results := make(chan result, others)
	var waiting []*lineWriter
	for range others {
		w := &lineWriter{want: "waiting for the outcome", seen: make(chan struct{})}
		waiting = append(waiting, w)
		go flush(results, w)
	}
	ended := 0
	for _, w := range waiting {
		select {
		case <-w.seen:
		case r := <-results: // it did not wait: the fault
			ended++
			t.Errorf("a flush beside another process's send ended: exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errs)
		case <-time.After(60 * time.Second):
			t.Fatal("a flush neither waited nor ended")
		}
	}
	release()
	if r := <-first; r.code != cli.ExitOK || !strings.Contains(r.out, "flushed 1 action: 1 done") {
		t.Fatalf("the sending flush: exit %d\n%s\n%s", r.code, r.out, r.errs)
	}
	for range others - ended {
		r := <-results
		if r.code != cli.ExitOK || !strings.Contains(r.out, "flushed 0 actions") ||
			!strings.Contains(r.out, "1 action sent by another process meanwhile: 1 done, 0 refused by the API") {
			t.Errorf("a waiting flush: exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errs)
		}
	}
	if h.srv.Analyses(id) != 1 || h.srv.Arrivals(screenapi.EPResubmit) != 1 {
		t.Fatalf("%d analyses, %d arrivals: want 1 and 1", h.srv.Analyses(id), h.srv.Arrivals(screenapi.EPResubmit))
	}
	if out, _ := h.want(0, "outbox", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("outbox: %s", out)
	}
}

// TestSixFlushesAtOnceOverManyActions: whatever each flush finds, every
// action ends done once, and each of the six exits 0.
func TestSixFlushesAtOnceOverManyActions(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	out, _ := h.want(0, "items", "--retryable", "--json")
	var items []struct{ ID string }
	if err := json.Unmarshal([]byte(out), &items); err != nil || len(items) < 12 {
		t.Fatalf("items: %v (%d)", err, len(items))
	}
	items = items[:12]
	h.srv.Refuse()
	for _, it := range items {
		h.want(cli.ExitQueued, "resubmit", it.ID)
	}
	if err := h.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make([]int, 6)
	outs := make([]string, 6)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], outs[i], _ = h.run("flush")
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != cli.ExitOK {
			t.Errorf("flush %d: exit %d: %s", i, c, outs[i])
		}
	}
	for _, it := range items {
		if n := h.srv.Analyses(it.ID); n != 1 {
			t.Errorf("%s analysed %d times", it.ID, n)
		}
	}
}
