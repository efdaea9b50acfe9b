package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

const anaToken, benToken = "tok-ana-0123456789", "tok-ben-0123456789"

// setupTeam starts a service that knows ana and ben, and a client for each.
func setupTeam(t *testing.T, version string) (*screenapi.Server, *client.Client, *client.Client) {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: version, Reviewers: []screenapi.Reviewer{
		{Name: "ana", DisplayName: "Ana Lima", Token: anaToken}, {Name: "ben", DisplayName: "Ben Okafor", Token: benToken}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	mk := func(tok string) *client.Client {
		cfg := testConfig(srv.URL())
		cfg.Token = client.Secret(tok)
		c, err := client.New(cfg, client.WithSleep((&sleeper{}).sleep))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	return srv, mk(anaToken), mk(benToken)
}

func TestMe(t *testing.T) {
	_, ana, ben := setupTeam(t, "")
	ctx := context.Background()
	if id, _, err := ana.Me(ctx); err != nil || id.Reviewer != "ana" || id.DisplayName != "Ana Lima" {
		t.Fatalf("%+v %v", id, err)
	}
	if id, _, err := ben.Me(ctx); err != nil || id.Reviewer != "ben" {
		t.Fatalf("%+v %v", id, err)
	}
}

func TestIfMatchAndItsRefusal(t *testing.T) {
	srv, ana, ben := setupTeam(t, "")
	ctx := context.Background()
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	it, _, err := ana.Resubmit(ctx, id, "k-ana", client.IfMatch(1))
	if err != nil || it.Revision != 2 || it.Status != policy.StatusScored {
		t.Fatalf("%+v %v", it, err)
	}
	_, _, err = ben.Resubmit(ctx, id, "k-ben", client.IfMatch(1))
	e := mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeItemChanged)
	if e.HTTPStatus != 412 || e.Item == nil || e.Item.Revision != 2 || *e.Item.RiskScore != *it.RiskScore {
		t.Fatalf("412 must carry the item as it is now: %+v", e)
	}
	if c, ok := client.AsConflict(err); !ok || c != e {
		t.Fatal("AsConflict")
	}
	if srv.Analyses(id) != 1 {
		t.Fatalf("analyses %d", srv.Analyses(id))
	}
}

func TestClaimReleaseAndClaimed(t *testing.T) {
	srv, ana, ben := setupTeam(t, "")
	ctx := context.Background()
	id := srv.FindCode("INTERNAL_ERROR")
	it, _, err := ana.Claim(ctx, id, 15*time.Minute)
	if err != nil || it.Claim == nil || it.Claim.Reviewer != "ana" || it.Claim.ExpiresAt.Sub(time.Now()) < 14*time.Minute {
		t.Fatalf("%+v %v", it.Claim, err)
	}
	for name, call := range map[string]func() error{
		"claim":    func() error { _, _, err := ben.Claim(ctx, id, time.Minute); return err },
		"release":  func() error { _, _, err := ben.Release(ctx, id); return err },
		"resubmit": func() error { _, _, err := ben.Resubmit(ctx, id, "kb", client.IfMatch(it.Revision)); return err },
		"note":     func() error { _, _, err := ben.AddNote(ctx, id, "kn", "hello"); return err },
	} {
		e := mustClientErr(t, call(), client.ClassAnsweredNo, policy.CodeClaimed)
		if e.HTTPStatus != 409 || e.Item == nil || e.Item.Claim == nil || e.Item.Claim.Reviewer != "ana" {
			t.Fatalf("%s: %+v", name, e)
		}
	}
	if it, _, err = ana.Release(ctx, id); err != nil || it.Claim != nil {
		t.Fatalf("release: %+v %v", it.Claim, err)
	}
	if _, _, err := ben.Claim(ctx, id, time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestAddNoteOnce(t *testing.T) {
	srv, _, ben := setupTeam(t, "")
	ctx := context.Background()
	id := srv.FindCode("DECODE_FAILED")
	n, _, err := ben.AddNote(ctx, id, "note-key", "Customer called, new scan coming.")
	if err != nil || n.Author != "ben" || n.ID == "" || n.CreatedAt.IsZero() {
		t.Fatalf("%+v %v", n, err)
	}
	again, _, err := ben.AddNote(ctx, id, "note-key", "Customer called, new scan coming.")
	if err != nil || again.ID != n.ID || len(srv.Notes(id)) != 1 {
		t.Fatalf("a repeat with the same key adds no second note: %+v %v", again, err)
	}
	_, _, err = ben.AddNote(ctx, id, "other", "  ")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeValidationFailed)
	// An answer lost after the note was made is unknown, not retried.
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPNote, Times: 1})
	_, _, err = ben.AddNote(ctx, id, "lost", "second")
	mustClientErr(t, err, client.ClassUnknown, policy.CodeOutcomeUnknown)
	if srv.Arrivals(screenapi.EPNote) != 4 || len(srv.Notes(id)) != 2 {
		t.Fatalf("arrivals %d notes %d", srv.Arrivals(screenapi.EPNote), len(srv.Notes(id)))
	}
	if _, _, err := ben.AddNote(ctx, id, "", "x"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a note without its stored key must not be sent: %v", err)
	}
}

func TestVersion10IsNotOffered(t *testing.T) {
	srv, ana, _ := setupTeam(t, screenapi.Version10)
	ctx := context.Background()
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	_, _, err := ana.Me(ctx)
	if !client.IsNotOffered(err) || policy.ErrorCode(err) != policy.CodeNotOffered {
		t.Fatalf("me: %v", err)
	}
	_, _, err = ana.Claim(ctx, id, time.Minute)
	if !client.IsNotOffered(err) {
		t.Fatalf("claim: %v", err)
	}
	_, _, err = ana.Release(ctx, id)
	if !client.IsNotOffered(err) {
		t.Fatalf("release: %v", err)
	}
	_, _, err = ana.AddNote(ctx, id, "k", "x")
	if !client.IsNotOffered(err) {
		t.Fatalf("note: %v", err)
	}
	it, _, err := ana.GetItem(ctx, id)
	if err != nil || it.Revision != 0 || it.Claim != nil || !it.StatusSince.IsZero() {
		t.Fatalf("a 1.0 item: %+v %v", it, err)
	}
}

// wireRecorder is a loopback server that records each request and answers
// with a canned body, to check what the client puts on the wire.
type wireRecorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method, path, ifMatch, key string
	body                       map[string]any
}

func (w *wireRecorder) start(t *testing.T, status int, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		w.mu.Lock()
		w.reqs = append(w.reqs, recorded{r.Method, r.URL.Path, r.Header.Get("If-Match"), r.Header.Get("Idempotency-Key"), body})
		w.mu.Unlock()
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(status)
		_, _ = io.WriteString(rw, answer)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

func TestTheWire(t *testing.T) {
	rec := &wireRecorder{}
	url := rec.start(t, 200, `{"id":"itm_1","batch_id":"b","status":"pending","revision":4,"reviewer":"ana","author":"ana","text":"t"}`)
	c, err := client.New(testConfig(url))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	c.Resubmit(ctx, "itm_1", "k1", client.IfMatch(3))
	c.Resubmit(ctx, "itm_1", "k2")
	c.Resubmit(ctx, "itm_1", "k3", client.IfMatch(0))
	c.RequestFile(ctx, "itm_1", "k4", policy.CodeDecodeFailed, "m", client.IfMatch(12))
	c.Replace(ctx, "itm_1", "k5", "a.png", []byte("\x89PNG"), client.IfMatch(7))
	c.AddNote(ctx, "itm_1", "k6", "hello", client.IfMatch(8))
	c.Claim(ctx, "itm_1", 15*time.Minute)
	c.Release(ctx, "itm_1")
	c.Me(ctx)
	want := []recorded{
		{"POST", "/v1/items/itm_1/resubmissions", `"3"`, "k1", nil},
		{"POST", "/v1/items/itm_1/resubmissions", "", "k2", nil},
		{"POST", "/v1/items/itm_1/resubmissions", "", "k3", nil},
		{"POST", "/v1/items/itm_1/file-requests", `"12"`, "k4", map[string]any{"reason": "DECODE_FAILED", "message": "m"}},
		{"POST", "/v1/items/itm_1/replacement", `"7"`, "k5", nil},
		{"POST", "/v1/items/itm_1/notes", `"8"`, "k6", map[string]any{"text": "hello"}},
		{"PUT", "/v1/items/itm_1/claim", "", "", map[string]any{"ttl_seconds": 900.0}},
		{"DELETE", "/v1/items/itm_1/claim", "", "", nil},
		{"GET", "/v1/me", "", "", nil},
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) != len(want) {
		t.Fatalf("%d requests, want %d: %+v", len(rec.reqs), len(want), rec.reqs)
	}
	for i, w := range want {
		g := rec.reqs[i]
		if g.method != w.method || g.path != w.path || g.ifMatch != w.ifMatch || g.key != w.key {
			t.Errorf("request %d: got %s %s If-Match %q key %q, want %s %s %q %q", i, g.method, g.path, g.ifMatch, g.key, w.method, w.path, w.ifMatch, w.key)
		}
		for k, v := range w.body {
			if g.body[k] != v {
				t.Errorf("request %d: body %v, want %s=%v", i, g.body, k, v)
			}
		}
	}
}

func TestClaimedAnswerIsNotRetriedAndCarriesTheItem(t *testing.T) {
	// A claim is a PUT: the same connection-level rule holds, one retry
	// when nothing was written, none after an answer.
	rec := &wireRecorder{}
	url := rec.start(t, 409, `{"error_code":"CLAIMED","error_message":"ben holds it","item":{"id":"itm_1","batch_id":"b","status":"pending","revision":5,"claim":{"reviewer":"ben","expires_at":"2026-11-29T10:19:00Z"}}}`)
	c, _ := client.New(testConfig(url))
	defer c.Close()
	_, as, err := c.Claim(context.Background(), "itm_1", time.Minute)
	e := mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeClaimed)
	if len(as) != 1 || e.Item == nil || e.Item.Claim.Reviewer != "ben" || e.Item.Revision != 5 {
		t.Fatalf("%d attempts, %+v", len(as), e)
	}
}
