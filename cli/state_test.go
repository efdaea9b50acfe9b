package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// outboxOf reads `outbox --json`.
func (h *harness) outboxOf() []map[string]any {
	h.t.Helper()
	out, _ := h.want(0, "outbox", "--json")
	var box []map[string]any
	if err := json.Unmarshal([]byte(out), &box); err != nil {
		h.t.Fatalf("outbox --json: %v: %s", err, out)
	}
	return box
}

// TestUnknownOutcomeStaysUnknownWhenTheFlushCannotConnect: an action that
// may have run stays unknown, end to end: an answer lost after the service ran the action,
// then a flush while the API is unreachable. The action must stay unknown
// and open, refuse cancel and a second action, and the flush with the API
// back must reconcile it with the same key: one paid analysis in all.
func TestUnknownOutcomeStaysUnknownWhenTheFlushCannotConnect(t *testing.T) {
	for _, tc := range []struct{ cmd, code, ep string }{
		{"replace", "DECODE_FAILED", screenapi.EPReplacement},
		{"resubmit", "CLASSIFIER_TIMEOUT", screenapi.EPResubmit},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			h := newHarness(t)
			h.want(0, "sync")
			id := h.srv.FindCode(tc.code)
			args := []string{tc.cmd, id}
			if tc.cmd == "replace" {
				file := filepath.Join(h.dir, "scan.png")
				os.WriteFile(file, screenapi.Scan(1<<10), 0o600)
				args = append(args, file)
			}
			h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: tc.ep, Times: 1})
			h.want(4, args...)
			if h.srv.Analyses(id) != 1 {
				t.Fatalf("the service ran %d analyses", h.srv.Analyses(id))
			}
			box := h.outboxOf()
			if len(box) != 1 || box[0]["state"] != "unknown" {
				t.Fatalf("outbox after a lost answer: %v", box)
			}
			key, actionID := box[0]["idempotency_key"], box[0]["id"].(float64)

			h.srv.Refuse()
			out, _ := h.want(4, "flush")
			if !strings.Contains(out, "1 unknown") || !strings.Contains(out, "0 still queued") {
				t.Fatalf("flush while unreachable: %s", out)
			}
			if box = h.outboxOf(); len(box) != 1 || box[0]["state"] != "unknown" || box[0]["idempotency_key"] != key {
				t.Fatalf("an unknown outcome changed state on a flush that could not connect: %v", box)
			}
			_, errs := h.want(3, "cancel", jsonID(actionID))
			if !strings.Contains(errs, "may have reached the service") {
				t.Fatalf("cancel: %s", errs)
			}
			if _, errs = h.want(3, args...); !strings.Contains(errs, "ACTION_OPEN") {
				t.Fatalf("a second action beside an unknown one: %s", errs)
			}

			if err := h.srv.Accept(); err != nil {
				t.Fatal(err)
			}
			out, _ = h.want(0, "flush")
			if !strings.HasPrefix(out, "flushed 1 action: 1 done") {
				t.Fatalf("flush: %s", out)
			}
			if h.srv.Analyses(id) != 1 || h.srv.Arrivals(tc.ep) != 2 {
				t.Fatalf("%d paid analyses, %d arrivals: want 1 and 2", h.srv.Analyses(id), h.srv.Arrivals(tc.ep))
			}
			out, _ = h.want(0, "item", id, "--json")
			var d struct {
				Actions []store.Action `json:"actions"`
			}
			json.Unmarshal([]byte(out), &d)
			if len(d.Actions) != 1 || d.Actions[0].Key != key || d.Actions[0].State != policy.ActionDone {
				t.Fatalf("actions %+v, key %v", d.Actions, key)
			}
		})
	}
}

func jsonID(v float64) string { return strconv.FormatInt(int64(v), 10) }

// gate is a loopback proxy in front of the service that runs a hook after
// the service answered an action (its analysis done) and before the answer
// travels on to the console.
type gate struct {
	*httptest.Server
	mu   sync.Mutex
	hook func()
}

func newGate(t *testing.T, upstream string) *gate {
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodPost {
			return nil
		}
		g.mu.Lock()
		hook := g.hook
		g.hook = nil
		g.mu.Unlock()
		if hook != nil {
			hook()
		}
		return nil
	}
	g.Server = httptest.NewServer(rp)
	t.Cleanup(g.Close)
	return g
}

func (g *gate) onAnswer(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hook = f
}

// takeOver is another process whose clock is past the console's lease: it
// flushes the cache straight at the service.
func (h *harness) takeOver(t *testing.T, ahead time.Duration) (review.FlushResult, error) {
	db, err := store.Open(h.env["REVIEWER_DB"], store.WithConfig(store.Config{
		Now: func() time.Time { return time.Now().Add(ahead) },
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := client.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.RetrySleep = h.srv.URL(), token, time.Millisecond
	api, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	svc, err := review.New(db, api, review.Config{Budget: cfg.Budget(), Reviewer: "ben"})
	if err != nil {
		t.Fatal(err)
	}
	return svc.Actions.Flush(context.Background())
}

// TestASenderFencedAfterItsLeaseSaysTheCallWasMade: a fenced sender made its call. A sender
// stopped past its lease (here: its answer held back) while another process
// took the action over and settled it. It made a call; its outcome is
// another's to record: exit 4 with words that say so, not 3.
func TestASenderFencedAfterItsLeaseSaysTheCallWasMade(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	g := newGate(t, h.srv.URL())
	h.env["REVIEWER_API_URL"] = g.URL
	id := h.srv.FindCode("FORENSICS_UNREACHABLE")
	var fr review.FlushResult
	var ferr error
	g.onAnswer(func() { fr, ferr = h.takeOver(t, time.Hour) })
	_, errs := h.want(4, "resubmit", id)
	if ferr != nil || fr.Done != 1 {
		t.Fatalf("the take-over: %+v %v", fr, ferr)
	}
	if !strings.Contains(errs, "OUTCOME_UNKNOWN") || !strings.Contains(errs, "was sent") || !strings.Contains(errs, "another process took it over") {
		t.Fatalf("stderr: %s", errs)
	}
	if h.srv.Analyses(id) != 1 {
		t.Fatalf("%d paid analyses", h.srv.Analyses(id))
	}
	if box := h.outboxOf(); len(box) != 0 {
		t.Fatalf("outbox %v", box)
	}
}

// TestAFlushSaysWhatItSkipped: a flush counts only what it sent; an action another process is
// sending is not "0 still queued" with exit 0; it is named, with the end of
// that process's lease.
func TestAFlushSaysWhatItSkipped(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("SOURCE_UNREACHABLE")
	h.srv.Refuse()
	h.want(5, "resubmit", id)
	h.srv.Accept()
	db, err := store.Open(h.env["REVIEWER_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	box, _ := db.Outbox.Outbox(context.Background())
	held, ok, err := db.Outbox.LeaseAction(context.Background(), box[0].ID, time.Hour) // another process is sending it
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	out, _ := h.want(4, "flush", "--wait", "0") // not waiting for the hour of that lease
	until := held.LeaseUntil.Local().Format("15:04:05")
	if !strings.HasPrefix(out, "flushed 0 actions: 0 done") || !strings.Contains(out, "1 skipped: being sent by another process until "+until) {
		t.Fatalf("flush: %s", out)
	}
	if h.srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatal("a flush sent an action another process holds")
	}
}

// TestThreeFlushesAtOnceAddUpToTheActions: each flush counts only what it sent, through the command
// line: three `reviewer flush` at once over forty queued actions. Each
// prints only what it sent, and their "done" add up to forty.
func TestThreeFlushesAtOnceAddUpToTheActions(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	out, _ := h.want(0, "items", "--retryable", "--json")
	var items []map[string]any
	json.Unmarshal([]byte(out), &items)
	if len(items) < 40 {
		t.Fatalf("%d retryable items", len(items))
	}
	h.srv.Refuse()
	for _, it := range items[:40] {
		h.want(5, "resubmit", it["id"].(string))
	}
	if err := h.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	type run struct {
		code        int
		out, errOut string
	}
	runs := make([]run, 3)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, errs := h.run("flush")
			runs[i] = run{code, out, errs}
		}()
	}
	wg.Wait()
	line := regexp.MustCompile(`^flushed (\d+) actions?: (\d+) done, 0 refused by the API, 0 unknown, 0 still queued`)
	done := 0
	for _, r := range runs {
		m := line.FindStringSubmatch(r.out)
		// Every action ends done: a flush that found some being sent by
		// another flush waits for them (saying so) and exits 0 too.
		if m == nil || (r.errOut != "" && !strings.Contains(r.errOut, "waiting for the outcome")) || r.code != 0 {
			t.Fatalf("flush: exit %d: %q %q", r.code, r.out, r.errOut)
		}
		n, _ := strconv.Atoi(m[2])
		if m[1] != m[2] {
			t.Errorf("sent %s, done %s: %s", m[1], m[2], r.out)
		}
		if (n == 1) != strings.HasPrefix(r.out, "flushed 1 action:") {
			t.Errorf("plural: %s", r.out)
		}
		done += n
	}
	if done != 40 {
		t.Fatalf("the flushes report %d done for 40 actions: %q %q %q", done, runs[0].out, runs[1].out, runs[2].out)
	}
	for _, it := range items[:40] {
		if n := h.srv.Analyses(it["id"].(string)); n != 1 {
			t.Fatalf("%s analysed %d times", it["id"], n)
		}
	}
	if box := h.outboxOf(); len(box) != 0 {
		t.Fatalf("outbox %v", box)
	}
}
