package review_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// forger sits in front of the reference service on loopback and, while
// armed, rewrites the JSON answer of one endpoint for one item: the
// service really runs (and counts) the call, the console reads the forgery.
type forger struct {
	mu      sync.Mutex
	victim  string // the item whose answers are rewritten
	suffix  string // the endpoint, e.g. "/resubmissions" or "/claim"
	rewrite func(status int, body map[string]any) (int, map[string]any)
}

func (f *forger) arm(victim, suffix string, rw func(int, map[string]any) (int, map[string]any)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.victim, f.suffix, f.rewrite = victim, suffix, rw
}

func (f *forger) wrap(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		rw, hit := f.rewrite, f.victim != "" && r.URL.Path == "/v1/items/"+f.victim+f.suffix && r.Method != http.MethodGet
		f.mu.Unlock()
		if !hit || rw == nil {
			inner.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			panic("the reference service answered no JSON: " + rec.Body.String())
		}
		status, body := rw(rec.Code, body)
		var buf bytes.Buffer
		_ = json.NewEncoder(&buf).Encode(body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(buf.Bytes())
	})
}

func setupForged(t *testing.T) (*env, *forger) {
	t.Helper()
	srv := screenapi.New(screenapi.Options{Token: token})
	f := &forger{}
	ts := httptest.NewServer(f.wrap(srv.Handler())) // 127.0.0.1 only
	t.Cleanup(ts.Close)
	path := filepath.Join(t.TempDir(), "cache.db")
	db, api, svc := newService(t, ts.URL, path)
	t.Cleanup(func() { api.Close(); db.Close() })
	e := &env{srv: srv, db: db, api: api, svc: svc, path: path}
	e.sync(t)
	return e, f
}

// A service (or a proxy in front of it) that answers a re-submission of
// one item with another item must not make either of them look checked:
// the other item is not touched, the asked-for one is not given the
// other's verdict, and the answer is an unreadable one, reconciled later
// with the same key (one paid analysis in all).
func TestAnAnswerAboutAnotherItemIsNoVerdict(t *testing.T) {
	e, f := setupForged(t)
	ctx := context.Background()
	victim := e.srv.FindCode("SOURCE_UNREACHABLE")
	other, ok := e.srv.Find(func(it policy.RawItem) bool {
		return it.ID != victim && it.Status == "error" && it.ErrorCode != nil && *it.ErrorCode == "DECODE_FAILED"
	})
	if victim == "" || !ok {
		t.Fatal("the seed has no SOURCE_UNREACHABLE or DECODE_FAILED item")
	}
	otherBefore, err := e.db.Items.Item(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	f.arm(victim, "/resubmissions", func(status int, body map[string]any) (int, map[string]any) {
		// The real answer for victim, under the other item's name, scored.
		body["id"] = other
		otherRaw, _ := e.srv.Item(other)
		body["batch_id"] = otherRaw.BatchID
		body["status"], body["risk_score"], body["recommendation"] = "scored", 3, "forward"
		body["error_code"], body["error_message"] = nil, nil
		return status, body
	})

	res, err := e.svc.Actions.Resubmit(ctx, victim)
	if err == nil && res.Err == nil {
		t.Fatalf("an answer about item %s was taken for %s: %+v", other, victim, res.Item)
	}
	cause := res.Err
	if cause == nil {
		cause = err
	}
	if policy.ErrorCode(cause) != policy.CodeInvalidResponse || !strings.Contains(cause.Error(), other) {
		t.Fatalf("want INVALID_RESPONSE naming %s, got %v", other, cause)
	}
	if res.Item != nil {
		t.Fatalf("a verdict came back for %s: %+v", victim, *res.Item)
	}
	if res.Action.State != policy.ActionUnknown {
		t.Fatalf("the action is %s, want unknown (reconciled with the same key)", res.Action.State)
	}
	v, _ := e.db.Items.Item(ctx, victim)
	if v.Checked() || v.RiskScore != nil || v.Status == policy.StatusScored {
		t.Fatalf("%s looks checked: %+v", victim, v.Item)
	}
	o, _ := e.db.Items.Item(ctx, other)
	if o.Status != otherBefore.Status || o.RiskScore != nil || o.Checked() || o.Revision != otherBefore.Revision {
		t.Fatalf("%s was overwritten by an answer about %s: %+v", other, victim, o.Item)
	}

	// The service's real answer for the key settles it, without a second
	// paid analysis.
	f.arm("", "", nil)
	fr, err := e.svc.Actions.Flush(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = fr
	if n := e.srv.Analyses(victim); n != 1 {
		t.Fatalf("%d analyses for one intent", n)
	}
	acts, _ := e.db.Outbox.ItemActions(ctx, victim)
	if len(acts) != 1 || acts[0].State != policy.ActionDone {
		t.Fatalf("after the flush: %+v", acts)
	}
}

// An answer that names the right item under another batch than the cache
// holds it in is not applied (it would move the item, or fail on the
// batch's foreign key and leave the action "sending" for good).
func TestAnAnswerUnderAnotherBatchIsNoVerdict(t *testing.T) {
	e, f := setupForged(t)
	ctx := context.Background()
	victim := e.srv.FindCode("SOURCE_UNREACHABLE")
	f.arm(victim, "/resubmissions", func(status int, body map[string]any) (int, map[string]any) {
		body["batch_id"] = "bat_elsewhere"
		return status, body
	})
	res, err := e.svc.Actions.Resubmit(ctx, victim)
	if err != nil {
		t.Fatalf("the outcome was not recorded: %v", err)
	}
	if policy.ErrorCode(res.Err) != policy.CodeInvalidResponse || res.Action.State != policy.ActionUnknown {
		t.Fatalf("want an unknown action with INVALID_RESPONSE, got %s %v", res.Action.State, res.Err)
	}
	v, _ := e.db.Items.Item(ctx, victim)
	if v.Checked() || v.BatchID == "bat_elsewhere" {
		t.Fatalf("the answer was applied: %+v", v.Item)
	}
}

// A refusal (409 CLAIMED) is recorded as one even when the item it carries
// is filed under another batch: the item is not applied, the action fails
// with the service's code instead of staying "sending" unrecorded.
func TestARefusalCarryingAForeignItemIsStillRecorded(t *testing.T) {
	e, f := setupForged(t)
	ctx := context.Background()
	victim := e.srv.FindCode("SOURCE_UNREACHABLE")
	f.arm(victim, "/resubmissions", func(int, map[string]any) (int, map[string]any) {
		raw, _ := e.srv.Item(victim)
		b, _ := json.Marshal(raw)
		var it map[string]any
		_ = json.Unmarshal(b, &it)
		it["batch_id"] = "bat_elsewhere"
		it["claim"] = map[string]any{"reviewer": "ben", "expires_at": "2099-01-01T00:00:00Z"}
		return http.StatusConflict, map[string]any{"error_code": "CLAIMED", "error_message": "ben holds it", "item": it}
	})
	res, err := e.svc.Actions.Resubmit(ctx, victim)
	if err != nil {
		t.Fatalf("the refusal was not recorded: %v", err)
	}
	if policy.ErrorCode(res.Err) != policy.CodeClaimed || res.Action.State != policy.ActionFailed {
		t.Fatalf("want a failed action with CLAIMED, got %s %v", res.Action.State, res.Err)
	}
	if v, _ := e.db.Items.Item(ctx, victim); v.BatchID == "bat_elsewhere" {
		t.Fatalf("the foreign item was applied: %+v", v.Item)
	}
}

// A claim answered with another item leaves that item alone.
func TestAClaimAnsweredWithAnotherItemIsNotApplied(t *testing.T) {
	e, f := setupForged(t)
	ctx := context.Background()
	victim := e.srv.FindCode("SOURCE_UNREACHABLE")
	other := e.srv.FindCode("DECODE_FAILED")
	before, _ := e.db.Items.Item(ctx, other)
	f.arm(victim, "/claim", func(status int, body map[string]any) (int, map[string]any) {
		otherRaw, _ := e.srv.Item(other)
		body["id"], body["batch_id"] = other, otherRaw.BatchID
		return status, body
	})
	if _, err := e.svc.Team.Claim(ctx, victim, 0); policy.ErrorCode(err) != policy.CodeInvalidResponse {
		t.Fatalf("want INVALID_RESPONSE, got %v", err)
	}
	if o, _ := e.db.Items.Item(ctx, other); o.Claim != nil || o.Revision != before.Revision {
		t.Fatalf("%s took the claim answered for %s: %+v", other, victim, o.Item)
	}
}
