package reliability

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	_ "github.com/mattn/go-sqlite3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

const token = "reliability-test-token"

// full selects the whole matrix and the 20 + 20 kills (make reliability).
var full = os.Getenv("RELIABILITY") == "full"

// settle bounds every wait for an event: generous, so that a loaded 2-core
// machine under -race never trips it, and finite, so that a hang is a
// failure with a message instead of a stuck suite.
const settle = 90 * time.Second

// --- the reference service, with what the suite observes of it -------------

// service is the reference service on its own loopback listener. Besides
// the service's own counters (arrivals per endpoint, paid analyses per item)
// it knows how many connections are open, which Idempotency-Keys arrived,
// and how many requests it answered, and it broadcasts every change, so
// that tests wait on these events instead of sleeping.
type service struct {
	*screenapi.Server
	url string
	hs  *http.Server

	mu       sync.Mutex
	changed  chan struct{}  // closed and replaced on every change
	open     int            // connections not closed yet
	arrived  int            // requests whose handler started
	answered int            // requests whose handler returned
	keys     map[string]int // Idempotency-Key -> requests arrived
	// keysAnswered: Idempotency-Key -> requests answered
	keysAnswered map[string]int
	blindPosts   int // POSTs that carried no If-Match
}

func startService(t testing.TB, opts screenapi.Options) *service {
	t.Helper()
	opts.Token = token
	s := &service{Server: screenapi.New(opts), changed: make(chan struct{}), keys: map[string]int{},
		keysAnswered: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.url = "http://" + ln.Addr().String()
	inner := s.Server.Handler()
	s.hs = &http.Server{
		ReadHeaderTimeout: settle,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get("Idempotency-Key")
			blind := r.Method == http.MethodPost && r.Header.Get("If-Match") == ""
			s.note(func() {
				s.arrived++
				if key != "" {
					s.keys[key]++
				}
				if blind {
					s.blindPosts++
				}
			})
			defer s.note(func() {
				s.answered++
				if key != "" {
					s.keysAnswered[key]++
				}
			})
			inner.ServeHTTP(w, r)
		}),
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				s.note(func() { s.open++ })
			case http.StateClosed, http.StateHijacked:
				s.note(func() { s.open-- })
			}
		},
	}
	go func() { _ = s.hs.Serve(ln) }()
	t.Cleanup(func() { s.hs.Close(); s.Server.Close() })
	return s
}

func (s *service) Addr() string { return strings.TrimPrefix(s.url, "http://") }

func (s *service) note(f func()) {
	s.mu.Lock()
	f()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// await waits until cond (run under the lock) holds, on change events.
func (s *service) await(what string, timeout time.Duration, cond func() bool) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-deadline.C:
			return fmt.Errorf("waited %v for %s", timeout, what)
		}
	}
}

// quiet waits until no connection to the service is open: every request
// the proxy delivered, however late, has been handled and counted.
func (s *service) quiet(t testing.TB) {
	t.Helper()
	if err := s.await("the service's connections to close", settle, func() bool { return s.open == 0 }); err != nil {
		t.Fatal(err)
	}
}

// keyArrivals is how many requests arrived with the key.
func (s *service) keyArrivals(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[key]
}

// items lists every item the service holds, each with its decisions
// (contract 1.2), which the service keeps beside its items and sends with
// them: a pick can then ask for an item by what was decided on it.
func (s *service) items() []policy.RawItem {
	var out []policy.RawItem
	s.Find(func(it policy.RawItem) bool { out = append(out, it); return false })
	for i := range out {
		for _, d := range s.Decisions(out[i].ID) {
			raw := policy.RawDecision{ID: d.ID, Outcome: d.Outcome, ReasonCode: d.ReasonCode, By: d.By, State: d.State}
			if d.ConfirmedBy != "" {
				raw.Confirmation = &policy.RawConfirmation{By: d.ConfirmedBy, Agree: d.Agree}
			}
			out[i].Decisions = append(out[i].Decisions, raw)
		}
	}
	return out
}

// pick returns n items that match pred, each only once per service.
func (s *service) pick(t testing.TB, n int, used map[string]bool, pred func(policy.RawItem) bool) []string {
	t.Helper()
	var out []string
	for _, it := range s.items() {
		if len(out) == n {
			break
		}
		if !used[it.ID] && pred(it) {
			used[it.ID] = true
			out = append(out, it.ID)
		}
	}
	if len(out) < n {
		t.Fatalf("the service has only %d such items, want %d", len(out), n)
	}
	return out
}

// retryable: an item in error whose code a re-run may help, valid per the contract.
func retryable(it policy.RawItem) bool {
	return it.Status == "error" && it.ErrorCode != nil && it.RiskScore == nil && it.Recommendation == nil &&
		policy.IsItemCode(policy.Code(*it.ErrorCode)) && policy.Retryable(policy.Code(*it.ErrorCode))
}

// needsFile: an item in error whose code a re-run cannot help.
func needsFile(it policy.RawItem) bool {
	return it.Status == "error" && it.ErrorCode != nil && it.RiskScore == nil && it.Recommendation == nil &&
		policy.IsItemCode(policy.Code(*it.ErrorCode)) && !policy.Retryable(policy.Code(*it.ErrorCode))
}

// deadURL is a loopback address where nothing listens: connections are refused.
func deadURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// --- toxiproxy, in-process ------------------------------------------------

var (
	toxOnce sync.Once
	toxSrv  *toxiproxy.ApiServer
	toxSeq  struct {
		sync.Mutex
		n int
	}
)

func toxServer() *toxiproxy.ApiServer {
	toxOnce.Do(func() {
		// The toxics log through zerolog's global logger: keep the test output clean.
		zerolog.SetGlobalLevel(zerolog.Disabled)
		toxSrv = toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	})
	return toxSrv
}

// proxy is a toxiproxy proxy on a free loopback port in front of upstream.
type proxy struct {
	p   *toxiproxy.Proxy
	url string
}

func newProxy(t testing.TB, upstream string) *proxy {
	t.Helper()
	srv := toxServer()
	toxSeq.Lock()
	toxSeq.n++
	name := fmt.Sprintf("screening-%d", toxSeq.n)
	toxSeq.Unlock()
	p := toxiproxy.NewProxy(srv, name, "127.0.0.1:0", upstream)
	if err := srv.Collection.Add(p, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Collection.Remove(name) })
	return &proxy{p: p, url: "http://" + p.Listen}
}

// toxic is one toxiproxy toxic, as its JSON form.
type toxic struct {
	Type       string         `json:"type"`
	Stream     string         `json:"stream"`
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

func (p *proxy) add(t testing.TB, tx toxic) {
	t.Helper()
	tx.Toxicity = 1
	b, _ := json.Marshal(tx)
	if _, err := p.p.Toxics.AddToxicJson(bytes.NewReader(b)); err != nil {
		t.Fatalf("toxic %s: %v", b, err)
	}
}

// heal removes every toxic; data a toxic was holding goes on its way.
func (p *proxy) heal() { p.p.Toxics.ResetToxics(context.Background()) }

// --- the command line -----------------------------------------------------

// console runs the real command line in-process, on one cache.
type console struct {
	t   testing.TB
	env map[string]string
}

func newConsole(t testing.TB, dir, url string) *console {
	return &console{t: t, env: map[string]string{
		"REVIEWER_API_URL": url, "REVIEWER_API_TOKEN": token, "REVIEWER_DB": filepath.Join(dir, "cache.db"),
		// Just above the service's 10 s classifier budget, the least the
		// configuration accepts: the toxics that hold data hold it longer.
		"REVIEWER_TIMEOUT": "11s", "REVIEWER_NAME": "ana",
	}}
}

// at returns the same console talking to another address.
func (c *console) at(url string) *console {
	env := map[string]string{}
	for k, v := range c.env {
		env[k] = v
	}
	env["REVIEWER_API_URL"] = url
	return &console{t: c.t, env: env}
}

func (c *console) db() string { return c.env["REVIEWER_DB"] }

type run struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r run) String() string {
	return fmt.Sprintf("reviewer %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

func (c *console) run(args ...string) run {
	var out, errb bytes.Buffer
	code := cli.Run(args, cli.Env{Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }})
	r := run{args: args, code: code, stdout: out.String(), stderr: errb.String()}
	if strings.Contains(r.stdout+r.stderr, token) {
		c.t.Errorf("the token was printed: %s", r)
	}
	return r
}

func (c *console) must(code int, args ...string) run {
	c.t.Helper()
	r := c.run(args...)
	if r.code != code {
		c.t.Fatalf("want exit %d: %s", code, r)
	}
	return r
}

// itemJSON is what the suite reads of `reviewer item ID --json`.
type itemJSON struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Actions []struct {
		ID            int64  `json:"id"`
		Kind          string `json:"kind"`
		Key           string `json:"idempotency_key"`
		State         string `json:"state"`
		Sends         int    `json:"sends"`
		LastErrorCode string `json:"last_error_code"`
	} `json:"actions"`
	Attempts []struct {
		Class string `json:"class"`
		Code  string `json:"code"`
	} `json:"attempts"`
	Decision *struct {
		ID          string  `json:"id"`
		State       string  `json:"state"`
		By          string  `json:"by"`
		ConfirmedBy *string `json:"confirmed_by"`
	} `json:"decision"`
}

// state is the state of one of the item's actions ("" when it has none
// with that id).
func (it itemJSON) state(actionID int64) string {
	for _, a := range it.Actions {
		if a.ID == actionID {
			return a.State
		}
	}
	return ""
}

func (c *console) item(id string) itemJSON {
	c.t.Helper()
	r := c.must(0, "item", id, "--json")
	var it itemJSON
	if err := json.Unmarshal([]byte(r.stdout), &it); err != nil {
		c.t.Fatalf("item --json: %v\n%s", err, r.stdout)
	}
	return it
}

// actionJSON is what the suite reads of `reviewer outbox --json`.
type actionJSON struct {
	ID     int64  `json:"id"`
	ItemID string `json:"item_id"`
	Kind   string `json:"kind"`
	Key    string `json:"idempotency_key"`
	State  string `json:"state"`
}

func (c *console) outbox() []actionJSON {
	c.t.Helper()
	r := c.must(0, "outbox", "--json")
	var out []actionJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		c.t.Fatalf("outbox --json: %v\n%s", err, r.stdout)
	}
	return out
}

// --- the cache file, read directly ---------------------------------------

func openCache(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// integrity runs PRAGMA integrity_check on the cache file.
func integrity(t testing.TB, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var lines []string
	rows, err := db.Query(`PRAGMA integrity_check`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err.Error()
		}
		lines = append(lines, s)
	}
	if err := rows.Err(); err != nil {
		return err.Error()
	}
	return strings.Join(lines, "; ")
}

// lastSyncClass is the outcome class of the last failed sync attempt the
// cache recorded ("" when none).
func lastSyncClass(t testing.TB, path string) string {
	t.Helper()
	var class string
	err := openCache(t, path).QueryRow(`SELECT class FROM attempts WHERE operation = 'sync' ORDER BY id DESC LIMIT 1`).Scan(&class)
	if err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	return class
}

// cacheAgrees compares the cache with the service, item by item: the same
// ids, each with the service's updated_at. It returns how many items the
// cache holds and a description of the first difference ("" when none).
func cacheAgrees(t testing.TB, path string, s *service) (int, string) {
	t.Helper()
	rows, err := openCache(t, path).Query(`SELECT id, updated_at FROM items`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cached := map[string]int64{}
	for rows.Next() {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			t.Fatal(err)
		}
		cached[id] = at
	}
	want := s.items()
	for _, it := range want {
		at, ok := cached[it.ID]
		switch {
		case !ok:
			return len(cached), "item " + it.ID + " is missing from the cache"
		case at != it.UpdatedAt.UnixMilli():
			return len(cached), fmt.Sprintf("item %s: cache updated_at %d, service %d", it.ID, at, it.UpdatedAt.UnixMilli())
		}
	}
	if len(cached) != len(want) {
		return len(cached), fmt.Sprintf("the cache holds %d items, the service %d", len(cached), len(want))
	}
	return len(cached), ""
}

// exitFor is the exit status the command line documents for an action's
// state after the call.
func exitFor(state string) int {
	switch state {
	case "done":
		return cli.ExitOK
	case "failed":
		return cli.ExitAnswerNo
	case "unknown":
		return cli.ExitUnknown
	case "queued":
		return cli.ExitQueued
	}
	return -1
}

// stateFor is the action state an outcome class must lead to.
func stateFor(class string) string {
	switch class {
	case "ok":
		return "done"
	case "unknown", "bad_answer":
		return "unknown"
	case "not_connected", "not_started", "untrusted":
		return "queued"
	case "answered_no", "rate_limited":
		return "failed"
	}
	return "?"
}

// scan is a replacement file: a sound picture of about n bytes (the
// console checks an upload as its viewer would before paying for it).
func scan(n int) []byte { return screenapi.Scan(n) }

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
