package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/screenapi"
)

const token = "cli-test-token-0001"

type harness struct {
	t   *testing.T
	srv *screenapi.Server
	env map[string]string
	dir string
	// as, when set, runs the command line in place of run: as another
	// user, in a child process (asNobody, cache_unix_test.go).
	as func(args ...string) (int, string, string)
}

func newHarness(t *testing.T) *harness {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	return &harness{t: t, srv: srv, dir: dir, env: map[string]string{
		"REVIEWER_API_URL": srv.URL(), "REVIEWER_API_TOKEN": token, "REVIEWER_DB": filepath.Join(dir, "cache.db"),
		"REVIEWER_RETRY_SLEEP": "1ms", "REVIEWER_TIMEOUT": "15s", "REVIEWER_NAME": "ana",
	}}
}

// run runs the command line and returns its exit status, stdout and stderr.
func (h *harness) run(args ...string) (int, string, string) {
	if h.as != nil {
		return h.as(args...)
	}
	var out, errb bytes.Buffer
	code := cli.Run(args, cli.Env{Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok }})
	return code, out.String(), errb.String()
}

// window runs the command line with the harness's environment, as the
// window's start does (nothing saved in Preferences), requires exit status
// want, and returns the window it would have opened (zero if none) and
// stderr.
func (h *harness) window(want int, args ...string) (cli.Window, string) {
	h.t.Helper()
	var got cli.Window
	var out, errb bytes.Buffer
	code := cli.Run(args, cli.Env{Stdout: &out, Stderr: &errb,
		Lookup:     func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
		Saved:      func(string) string { return "" },
		OpenWindow: func(w cli.Window) error { got = w; return nil }})
	if code != want {
		h.t.Fatalf("%v: exit %d, want %d: %s", args, code, want, errb.String())
	}
	return got, errb.String()
}

func (h *harness) want(code int, args ...string) (string, string) {
	h.t.Helper()
	got, out, errs := h.run(args...)
	if got != code {
		h.t.Fatalf("reviewer %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, out, errs)
	}
	if strings.Contains(out+errs, token) {
		h.t.Fatalf("the token was printed")
	}
	if code != 0 && strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		h.t.Fatalf("stderr is more than one line: %q", errs)
	}
	return out, errs
}

func TestCommandLine(t *testing.T) {
	h := newHarness(t)
	out, _ := h.want(0, "sync")
	if !strings.Contains(out, "48 batches") {
		t.Fatalf("sync: %s", out)
	}
	out, _ = h.want(0, "items", "--json")
	var items []map[string]any
	if err := json.Unmarshal([]byte(out), &items); err != nil || len(items) < 100 {
		t.Fatalf("items --json: %v (%d)", err, len(items))
	}
	for _, it := range items {
		for _, k := range []string{"id", "batch_id", "file_name", "kind", "status", "risk_score", "recommendation",
			"error_code", "reported_code", "retryable", "next_action", "open_action"} {
			if _, ok := it[k]; !ok {
				t.Fatalf("items --json lacks %q: %v", k, it)
			}
		}
		if it["status"] != "scored" && (it["risk_score"] != nil || it["recommendation"] != nil) {
			t.Fatalf("unchecked item with a verdict: %v", it)
		}
	}
	out, _ = h.want(0, "items", "--retryable", "--json")
	var retryable []map[string]any
	json.Unmarshal([]byte(out), &retryable)
	for _, it := range retryable {
		if it["retryable"] != true || it["next_action"] != "resubmit" {
			t.Fatalf("--retryable: %v", it)
		}
	}

	retry := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	out, _ = h.want(0, "resubmit", retry)
	if !strings.Contains(out, "risk score") {
		t.Fatalf("resubmit: %s", out)
	}
	out, _ = h.want(0, "item", retry, "--json")
	var detail map[string]any
	json.Unmarshal([]byte(out), &detail)
	if detail["status"] != "scored" || len(detail["actions"].([]any)) != 1 || len(detail["audit"].([]any)) < 3 {
		t.Fatalf("item --json: %s", out)
	}

	// Refused locally, no call made.
	fixed := h.srv.FindCode("DECODE_FAILED")
	_, errs := h.want(3, "resubmit", fixed)
	if !strings.Contains(errs, "DECODE_FAILED") || !strings.Contains(errs, "request a new file") {
		t.Fatalf("refusal: %s", errs)
	}
	if h.srv.Arrivals(screenapi.EPResubmit) != 1 {
		t.Fatal("a refused re-submission reached the API")
	}
	bad := filepath.Join(h.dir, "note.txt")
	os.WriteFile(bad, []byte("not an image"), 0o600)
	h.want(3, "replace", fixed, bad)
	h.want(2, "request-file", fixed)
	h.want(0, "request-file", fixed, "--message", "Please send a new photo.")
	good := filepath.Join(h.dir, "new.png")
	os.WriteFile(good, screenapi.Scan(1<<10), 0o600)
	h.want(0, "replace", fixed, good)

	// Offline: queued, then flushed.
	other := h.srv.FindCode("INTERNAL_ERROR")
	h.srv.Refuse()
	_, errs = h.want(5, "resubmit", other)
	if !strings.Contains(errs, "API_UNREACHABLE") || !strings.Contains(errs, "flush") {
		t.Fatalf("queued: %s", errs)
	}
	h.want(0, "items", "--needs-action") // reading works offline
	h.want(7, "sync")                    // a failed read: nothing to queue
	out, _ = h.want(0, "outbox", "--json")
	var box []map[string]any
	json.Unmarshal([]byte(out), &box)
	if len(box) != 1 || box[0]["state"] != "queued" || box[0]["idempotency_key"] == "" || box[0]["item_id"] != other {
		t.Fatalf("outbox: %s", out)
	}
	h.srv.Accept()
	h.want(0, "flush")
	if h.srv.Analyses(other) != 1 {
		t.Fatalf("analyses %d", h.srv.Analyses(other))
	}

	// Unknown outcome: 4, and flush reconciles it.
	third := h.srv.FindCode("SOURCE_UNREACHABLE")
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPResubmit, Times: 1})
	h.want(4, "resubmit", third)
	h.want(3, "resubmit", third) // the open action blocks a second try
	h.want(0, "flush")
	if h.srv.Analyses(third) != 1 {
		t.Fatalf("analyses %d", h.srv.Analyses(third))
	}

	// The API says no: 6 (a 503 is not trusted to have run nothing).
	fourth := h.srv.FindCode("FORENSICS_UNREACHABLE")
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPResubmit, Times: 1})
	_, errs = h.want(6, "resubmit", fourth)
	if !strings.Contains(errs, "SERVICE_UNAVAILABLE") {
		t.Fatalf("%s", errs)
	}
	// Rate limited: a 429 ran nothing, so it stays queued until the wait
	// ends: 5.
	fifth := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPResubmit, Times: 1, RetryAfter: "60"})
	_, errs = h.want(5, "resubmit", fifth)
	if !strings.Contains(errs, "RATE_LIMITED") || !strings.Contains(errs, "queued") || !strings.Contains(errs, "rate limiting until") {
		t.Fatalf("%s", errs)
	}
	if out, _ := h.want(0, "outbox"); !strings.Contains(out, "queued · rate limited until") {
		t.Fatalf("outbox: %s", out)
	}
	h.want(3, "resubmit", h.srv.FindCode("CLASSIFIER_UNAVAILABLE")) // the wait is running

	csvPath := filepath.Join(h.dir, "out.csv")
	h.want(0, "export", "--csv", csvPath, "--batch", "bat_0001")
	if b, _ := os.ReadFile(csvPath); strings.Count(string(b), "\n") != 11 {
		t.Fatalf("csv: %s", b)
	}
}

func TestUsageAndConfigErrors(t *testing.T) {
	h := newHarness(t)
	h.want(2, "frobnicate")
	h.want(2, "item")
	h.want(2, "items", "--status", "passed")
	h.env["REVIEWER_TIMEOUT"] = "thirty"
	_, errs := h.want(2, "items")
	if !strings.Contains(errs, "REVIEWER_TIMEOUT") {
		t.Fatalf("%s", errs)
	}
	delete(h.env, "REVIEWER_TIMEOUT")
	h.env["REVIEWER_API_URL"] = "http://screening.example.com"
	_, errs = h.want(2, "sync")
	if !strings.Contains(errs, "REVIEWER_ALLOW_INSECURE_HTTP") {
		t.Fatalf("%s", errs)
	}
	h.env["REVIEWER_API_URL"] = h.srv.URL()
	h.want(1, "item", "itm_nope")
}

func TestWindowPreferencesYieldToFlagsAndEnvironment(t *testing.T) {
	h := newHarness(t)
	saved := map[string]string{cli.PrefReviewer: "saved-name", cli.PrefAPIURL: "https://saved.example"}
	var got []cli.Window
	run := func(args ...string) cli.Window {
		t.Helper()
		var out, errb bytes.Buffer
		code := cli.Run(args, cli.Env{Stdout: &out, Stderr: &errb,
			Lookup:     func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
			Saved:      func(k string) string { return saved[k] },
			OpenWindow: func(w cli.Window) error { got = append(got, w); return nil }})
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return got[len(got)-1]
	}
	if w := run(); w.Service.Team.Reviewer() != "ana" || w.Config.BaseURL != h.srv.URL() {
		t.Fatalf("the environment must win: %s %s", w.Service.Team.Reviewer(), w.Config.BaseURL)
	}
	if w := run("--reviewer", "bo"); w.Service.Team.Reviewer() != "bo" {
		t.Fatalf("the flag must win: %s", w.Service.Team.Reviewer())
	}
	delete(h.env, "REVIEWER_NAME")
	delete(h.env, "REVIEWER_API_URL")
	if w := run(); w.Service.Team.Reviewer() == "saved-name" || w.Config.BaseURL != "https://saved.example" {
		t.Fatalf("saved preferences: %s %s (a saved name must never author audit entries)", w.Service.Team.Reviewer(), w.Config.BaseURL)
	}
	if w := run(); w.ReviewerSource != "the system user" {
		t.Fatalf("reviewer source %q", w.ReviewerSource)
	}
	if w := run("--reviewer", "cy"); w.ReviewerSource != "--reviewer" {
		t.Fatalf("reviewer source %q", w.ReviewerSource)
	}
	if w := run("--api", h.srv.URL()); w.Config.BaseURL != h.srv.URL() {
		t.Fatalf("--api must win: %s", w.Config.BaseURL)
	}
	w := run()
	if strings.Contains(w.TokenSource, token) || !strings.Contains(w.TokenSource, "REVIEWER_API_TOKEN") {
		t.Fatalf("token source %q", w.TokenSource)
	}
	if w := run("--demo"); !w.Demo || !strings.HasPrefix(w.Config.BaseURL, "http://127.0.0.1:") || w.Config.BaseURL == h.srv.URL() || w.Config.BaseURL == "https://saved.example" {
		t.Fatalf("demo window %s", w.Config.BaseURL)
	}
}

func TestDemoAPIFaultFlags(t *testing.T) {
	h := newHarness(t)
	for _, bad := range [][]string{{"demo-api", "--fault", "gremlins"}, {"demo-api", "--fault", "hang:resubmit:x"}, {"demo-api", "--tls", "weird"}} {
		h.want(2, bad...)
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	h := newHarness(t)
	for _, args := range [][]string{{"-h"}, {"items", "-h"}, {"help"}} {
		out, errs := h.want(0, args...)
		if !strings.Contains(out, "usage: reviewer") || errs != "" {
			t.Fatalf("%v: %q %q", args, out, errs)
		}
	}
}
