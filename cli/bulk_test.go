package cli_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// ask runs the command line with stdin, as on a terminal or not.
func (h *harness) ask(stdin string, terminal bool, code int, args ...string) (string, string) {
	h.t.Helper()
	var out, errb bytes.Buffer
	got := cli.Run(args, cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin),
		Interactive: func() bool { return terminal },
		Lookup:      func(k string) (string, bool) { v, ok := h.env[k]; return v, ok }})
	if got != code {
		h.t.Fatalf("reviewer %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

var headline = regexp.MustCompile(`Re-submit (\d+) items: (\d+) paid analyses`)

func TestBulkResubmitPlanDryRunAndConfirmation(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	out, _ := h.want(0, "resubmit", "--retryable", "--dry-run")
	m := headline.FindStringSubmatch(out)
	if m == nil || m[1] != m[2] || m[1] == "0" || !strings.Contains(out, "need a new file") || !strings.Contains(out, "dry run: nothing queued") {
		t.Fatalf("dry run printed:\n%s", out)
	}
	if h.srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatal("a dry run made a call")
	}
	if out, _ := h.want(0, "outbox"); strings.Count(out, "\n") > 1 {
		t.Fatalf("a dry run queued:\n%s", out)
	}
	// No terminal, no --yes: refused before anything is queued.
	_, errs := h.ask("y\n", false, cli.ExitUsage, "resubmit", "--retryable")
	if !strings.Contains(errs, "--yes") || !strings.Contains(errs, "paid analyses") {
		t.Fatalf("refusal: %s", errs)
	}
	// On a terminal, anything but yes is a no.
	out, _ = h.ask("n\n", true, cli.ExitRefused, "resubmit", "--retryable")
	if !strings.Contains(out, "Go ahead? [y/N]") || !strings.Contains(out, "not confirmed") {
		t.Fatalf("%s", out)
	}
	if h.srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatal("a refusal made a call")
	}
	// One code, confirmed on the terminal.
	out, _ = h.ask("yes\n", true, cli.ExitOK, "resubmit", "--retryable", "--code", "CLASSIFIER_TIMEOUT")
	m = headline.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%s", out)
	}
	n := strings.Count(out, ": done")
	if fmt.Sprint(n) != m[1] || n == 0 || h.srv.TotalAnalyses() != n {
		t.Fatalf("%d done lines, %d analyses:\n%s", n, h.srv.TotalAnalyses(), out)
	}
	if !strings.Contains(out, "bulk run 1: "+m[1]+" done, 0 refused by the API, 0 unknown, 0 still queued") {
		t.Fatalf("summary:\n%s", out)
	}
}

func TestBulkResubmitWithYesWhileTheAPIIsDownQueuesAndCanBeUndone(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	h.srv.Refuse()
	out, _ := h.ask("", false, cli.ExitQueued, "resubmit", "--retryable", "--yes", "--concurrency", "2")
	if !strings.Contains(out, "still queued, nothing sent") || !strings.Contains(out, "stopped sending: nothing reached the API") {
		t.Fatalf("%s", out)
	}
	out, _ = h.want(0, "cancel-run", "1")
	m := headline.FindStringSubmatch(func() string { o, _ := h.want(0, "resubmit", "--retryable", "--dry-run"); return o }())
	if m == nil || !strings.Contains(out, "bulk run 1: "+m[1]+" actions not yet sent cancelled") {
		t.Fatalf("undo: %s (plan %v)", out, m)
	}
	h.want(1, "cancel-run", "99")
	h.want(2, "cancel-run", "x")
	h.srv.Accept()
	if out, _ := h.want(0, "flush"); !strings.Contains(out, "flushed 0 actions") {
		t.Fatalf("cancelled actions were sent: %s", out)
	}
}

// A bulk run that meets a 429 leaves the one turned away and the rest
// queued (a 429 ran nothing), says until when (exit 5), and 'reviewer
// flush' sends them after the wait, each once.
func TestBulkResubmitThatMeetsA429LeavesTheRestQueuedAndFlushSendsThemAfterTheWait(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPResubmit, RetryAfter: "2", Times: 1})
	out, _ := h.ask("", false, cli.ExitQueued, "resubmit", "--retryable", "--yes", "--concurrency", "1")
	m := headline.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%s", out)
	}
	n := 0
	fmt.Sscan(m[1], &n)
	if strings.Count(out, "queued · rate limited until") != 1 || strings.Count(out, "still queued, nothing sent") != n-1 ||
		!strings.Contains(out, "0 done, 0 refused by the API, 0 unknown, "+m[1]+" still queued") ||
		!strings.Contains(out, "stopped sending: the API is rate-limiting") || strings.Contains(out, "refused by the API:") {
		t.Fatalf("the run that met a 429:\n%s", out)
	}
	if h.srv.Arrivals(screenapi.EPResubmit) != 1 || h.srv.TotalAnalyses() != 0 {
		t.Fatalf("%d arrivals, %d analyses", h.srv.Arrivals(screenapi.EPResubmit), h.srv.TotalAnalyses())
	}
	out, _ = h.want(0, "flush")
	if !strings.Contains(out, "flushed "+m[1]+" actions: "+m[1]+" done") {
		t.Fatalf("flush after the wait: %s", out)
	}
	if h.srv.Arrivals(screenapi.EPResubmit) != n+1 || h.srv.TotalAnalyses() != n {
		t.Fatalf("%d arrivals, %d analyses for %d items", h.srv.Arrivals(screenapi.EPResubmit), h.srv.TotalAnalyses(), n)
	}
}

func TestBulkRequestFileWithAMessagePerCode(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	h.want(2, "request-file", "--non-retryable", "--message", "no-equals-sign", "--yes")
	out, _ := h.want(0, "request-file", "--non-retryable", "--code", "DECODE_FAILED", "--dry-run",
		"--message", "DECODE_FAILED=Please send a sharper photo.")
	if !strings.Contains(out, "no paid analysis") || !strings.Contains(out, "message for DECODE_FAILED: Please send a sharper photo.") {
		t.Fatalf("%s", out)
	}
	out, _ = h.want(0, "request-file", "--non-retryable", "--code", "DECODE_FAILED", "--yes",
		"--message", "DECODE_FAILED=Please send a sharper photo.")
	id := h.srv.FindCode(string(policy.CodeDecodeFailed))
	if id != "" || h.srv.TotalAnalyses() != 0 || !strings.Contains(out, ": done") {
		t.Fatalf("an item still waits for its request (%q), or an analysis was paid:\n%s", id, out)
	}
}

func TestTriageNumbersFromTheEnvironment(t *testing.T) {
	h := newHarness(t)
	for k, v := range map[string]string{"REVIEWER_RISK_BANDS": "70,40,85", "REVIEWER_AGE_WARN": "soon", "REVIEWER_AGE_OVERDUE": "1h"} {
		h.env[k] = v
		_, errs := h.want(cli.ExitUsage, "sync")
		if !strings.Contains(errs, k) {
			t.Fatalf("%s=%s: %s", k, v, errs)
		}
		delete(h.env, k)
	}
	h.env["REVIEWER_RISK_BANDS"], h.env["REVIEWER_AGE_WARN"], h.env["REVIEWER_AGE_OVERDUE"] = "10,20,30", "1h", "2h"
	h.want(0, "sync")
}
