package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// servePage starts a loopback server that answers every request with body
// and counts the requests.
func servePage(t *testing.T, body string) (*client.Client, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(ts.Close)
	c, err := client.New(testConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, &n
}

const (
	goodItem = `{"id":"itm_good","batch_id":"bat_1","kind":"id_document","file_name":"a.jpg","media_type":"image/jpeg",
		"size_bytes":10,"status":"scored","risk_score":12,"recommendation":"forward","layers":{"ela":0.1},
		"error_code":null,"error_message":null,"attempt":1,"updated_at":"2026-11-29T10:00:00Z"}`
	// A claim that expires in the year 275760: valid JSON, not a time Go reads.
	farClaim = `{"id":"itm_claim","batch_id":"bat_1","kind":"selfie","file_name":"s.jpg","status":"scored","risk_score":40,
		"recommendation":"review","attempt":2,"updated_at":"2026-11-29T10:01:00Z","revision":3,
		"claim":{"reviewer":"ben","expires_at":"+275760-09-13T00:00:00Z"}}`
	hugeScore   = `{"id":"itm_huge","batch_id":"bat_1","status":"scored","risk_score":1e400,"recommendation":"forward","updated_at":"2026-11-29T10:02:00Z"}`
	stringLayer = `{"id":"itm_layer","batch_id":"bat_1","status":"scored","risk_score":7,"recommendation":"forward","layers":{"ela":"high"},"updated_at":"2026-11-29T10:03:00Z"}`
	notObject   = `"itm_bare"`
	dotItem     = `{"id":".","batch_id":"bat_1","status":"error","error_code":"CLASSIFIER_TIMEOUT","updated_at":"2026-11-29T10:04:00Z"}`
	dotDotItem  = `{"id":"..","batch_id":"bat_1","status":"pending","updated_at":"2026-11-29T10:04:00Z"}`
)

func TestListBatchesReadsEachItemOnItsOwn(t *testing.T) {
	items := []string{goodItem, farClaim, hugeScore, stringLayer, notObject, dotItem, dotDotItem}
	page := `{"batches":[{"id":"bat_1","customer_ref":"CUST-1","created_at":"2026-11-29T09:00:00Z","updated_at":"2026-11-29T10:05:00Z",
		"items":[` + strings.Join(items, ",") + `]},
		{"id":"bat_2","customer_ref":"CUST-2","created_at":"2026-11-29T09:00:00Z","updated_at":"2026-11-29T10:06:00Z",
		"items":[` + strings.NewReplacer("itm_good", "itm_two", `"bat_1"`, `"bat_2"`).Replace(goodItem) + `]}],"next_cursor":"c2"}`
	c, _ := servePage(t, page)
	p, _, err := c.ListBatches(context.Background(), time.Time{}, "", 0)
	if err != nil {
		t.Fatalf("one unreadable item stopped the page: %v", err)
	}
	if p.NextCursor != "c2" || len(p.Batches) != 2 || len(p.Batches[0].Items) != len(items) || len(p.Batches[1].Items) != 1 {
		t.Fatalf("page: %+v", p)
	}
	byID := map[string]policy.Item{}
	for _, b := range p.Batches {
		for _, it := range b.Items {
			if it.BatchID != b.ID {
				t.Fatalf("%s filed under %s in %s", it.ID, it.BatchID, b.ID)
			}
			byID[it.ID] = it
		}
	}
	for _, id := range []string{"itm_good", "itm_two"} {
		if it := byID[id]; !it.Checked() || *it.RiskScore != 12 || it.Raw != "" {
			t.Fatalf("%s: the readable items of the page must come as sent: %+v", id, it)
		}
	}
	invalid := map[string]string{ // id: what its problem must name
		"itm_claim": "275760", "itm_huge": "1e400", "itm_layer": "layers", ".": "relative path", "..": "relative path",
	}
	bare := ""
	for id, it := range byID {
		if strings.Contains(id, "(item 5 of batch bat_1") {
			bare = id
			invalid[id] = "not a JSON object"
		}
		_ = it
	}
	if bare == "" {
		t.Fatalf("the item that is not an object was lost: %v", byID)
	}
	for id, want := range invalid {
		it, ok := byID[id]
		if !ok {
			t.Fatalf("%s lost", id)
		}
		if it.Status != policy.StatusInvalid || it.ErrorCode != policy.CodeInvalidResponse || it.Checked() ||
			it.RiskScore != nil || it.Recommendation != "" || it.Layers != nil {
			t.Fatalf("%s must be invalid with no verdict: %+v", id, it)
		}
		if !strings.Contains(it.Problem, want) {
			t.Fatalf("%s: problem %q does not name %q", id, it.Problem, want)
		}
		if it.Raw == "" || (id != bare && !strings.Contains(it.Raw, `"id":"`+id+`"`)) {
			t.Fatalf("%s: the raw text is not kept: %q", id, it.Raw)
		}
	}
	if byID[bare].Raw != notObject {
		t.Fatalf("raw of the bare item: %q", byID[bare].Raw)
	}
	// What could be read of an unreadable item is kept: its date, its kind.
	if it := byID["itm_claim"]; it.Kind != policy.KindSelfie || it.Attempt != 2 ||
		!it.UpdatedAt.Equal(time.Date(2026, 11, 29, 10, 1, 0, 0, time.UTC)) {
		t.Fatalf("itm_claim: %+v", it)
	}
	// An item without a date of its own is dated as its batch.
	if it := byID[bare]; !it.UpdatedAt.Equal(time.Date(2026, 11, 29, 10, 5, 0, 0, time.UTC)) {
		t.Fatalf("the bare item is dated %v", it.UpdatedAt)
	}
}

// A batch whose own fields cannot be read keeps what can be read; one
// without a readable id is kept under a made id that can never be sent,
// with every item of it invalid.
func TestListBatchesKeepsABatchItCannotFullyRead(t *testing.T) {
	page := `{"batches":[
		{"id":"bat_1","customer_ref":7,"created_at":"yesterday","updated_at":"2026-11-29T10:05:00Z","items":[` + goodItem + `]},
		{"id":42,"customer_ref":"CUST-9","items":[` + strings.ReplaceAll(goodItem, "itm_good", "itm_orphan") + `,{"status":"pending"}]},
		"not a batch"],"next_cursor":null}`
	c, _ := servePage(t, page)
	p, _, err := c.ListBatches(context.Background(), time.Time{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Batches) != 3 || p.NextCursor != "" {
		t.Fatalf("page: %+v", p)
	}
	b := p.Batches[0]
	if b.ID != "bat_1" || b.CustomerRef != "" || !b.CreatedAt.IsZero() || b.UpdatedAt.IsZero() || len(b.Items) != 1 || !b.Items[0].Checked() {
		t.Fatalf("a batch with readable id and items keeps them: %+v", b)
	}
	o := p.Batches[1]
	if policy.IDProblem(o.ID) == "" || o.ID == p.Batches[2].ID || len(o.Items) != 2 || !o.UpdatedAt.IsZero() {
		t.Fatalf("batch without a readable id: %+v", o)
	}
	for _, it := range o.Items {
		if it.Status != policy.StatusInvalid || it.Checked() || it.BatchID != o.ID || it.Raw == "" ||
			!strings.Contains(it.Problem, "without a readable id") && it.ID == "itm_orphan" {
			t.Fatalf("an item of a batch without an id: %+v", it)
		}
	}
	if o.Items[0].ID != "itm_orphan" || policy.IDProblem(o.Items[1].ID) == "" {
		t.Fatalf("ids: %q, %q", o.Items[0].ID, o.Items[1].ID)
	}
}

func TestListBatchesStopsOnlyOnAPageThatIsNotJSON(t *testing.T) {
	for _, body := range []string{`{"batches": [{"id": "bat_x", "items": [{"id": `, `<html>oops</html>`, `{"next_cursor":"c"}`} {
		c, _ := servePage(t, body)
		_, _, err := c.ListBatches(context.Background(), time.Time{}, "", 0)
		e, ok := client.AsError(err)
		if !ok || e.Code != policy.CodeInvalidResponse || e.Class != client.ClassBadAnswer {
			t.Fatalf("%s: %v", body, err)
		}
	}
}

func TestOversizedPageNamesTheSetting(t *testing.T) {
	for _, announce := range []bool{true, false} {
		// A limit far below the fault's 9 MiB: with the default 8 MiB the
		// client decodes 8 MiB before it stops, which under -race on a
		// loaded machine outlasted the test's request timeout (an unknown
		// outcome instead of the refusal this test is about).
		srv, c, _, _ := setup(t, func(cfg *client.Config) { cfg.MaxBody = 64 << 10 })
		srv.SetFault(screenapi.Fault{Kind: screenapi.FaultOversized, Endpoint: screenapi.EPBatches, Times: 1, Announce: announce})
		_, _, err := c.ListBatches(context.Background(), time.Time{}, "", 0)
		if e, ok := client.AsError(err); !ok || e.Code != policy.CodeInvalidResponse || !strings.Contains(err.Error(), "REVIEWER_MAX_BODY") {
			t.Fatalf("announced=%v: %v", announce, err)
		}
	}
}

// An id that is not one safe path segment is refused before any request,
// by every call on an item.
func TestUnsafeItemIDsNeverReachTheService(t *testing.T) {
	c, n := servePage(t, goodItem)
	ctx := context.Background()
	for _, id := range []string{".", "..", "", "a/b", "%2e", "a?b", "a#b", "a b", "é", strings.Repeat("a", policy.MaxIDLength+1)} {
		calls := map[string]func() error{
			"get":      func() error { _, _, err := c.GetItem(ctx, id); return err },
			"resubmit": func() error { _, _, err := c.Resubmit(ctx, id, "k1"); return err },
			"file":     func() error { _, _, err := c.RequestFile(ctx, id, "k2", policy.CodeDecodeFailed, "m"); return err },
			"replace":  func() error { _, _, err := c.Replace(ctx, id, "k3", "a.pdf", []byte("%PDF-1.7")); return err },
			"claim":    func() error { _, _, err := c.Claim(ctx, id, time.Minute); return err },
			"release":  func() error { _, _, err := c.Release(ctx, id); return err },
			"note":     func() error { _, _, err := c.AddNote(ctx, id, "k4", "hi"); return err },
		}
		for name, call := range calls {
			err := call()
			e, ok := client.AsError(err)
			if !errors.Is(err, client.ErrUnsafeID) || !ok || e.Class != client.ClassNotStarted || e.Code != policy.CodeInvalidInput || len(e.Attempts) != 0 {
				t.Fatalf("%s %q: %v", name, id, err)
			}
		}
	}
	if got := n.Load(); got != 0 {
		t.Fatalf("%d requests reached the server", got)
	}
	// A safe id goes out.
	if _, _, err := c.GetItem(ctx, "itm_good"); err != nil || n.Load() != 1 {
		t.Fatalf("a safe id: %v, %d requests", err, n.Load())
	}
}

// The text kept of an invalid item never holds the token, even from a
// service that echoes it.
func TestInvalidItemTextNeverHoldsTheToken(t *testing.T) {
	item := `{"id":"itm_tok","batch_id":"bat_1","status":"scored","risk_score":1e400,"echo":"Bearer ` + testToken + `"}`
	c, _ := servePage(t, `{"batches":[{"id":"bat_1","items":[`+item+`]}],"next_cursor":null}`)
	p, _, err := c.ListBatches(context.Background(), time.Time{}, "", 0)
	if err != nil || len(p.Batches) != 1 || len(p.Batches[0].Items) != 1 {
		t.Fatalf("%+v %v", p, err)
	}
	it := p.Batches[0].Items[0]
	if it.Status != policy.StatusInvalid || strings.Contains(it.Raw+it.Problem, testToken) || !strings.Contains(it.Raw, "[redacted]") {
		t.Fatalf("raw %q, problem %q", it.Raw, it.Problem)
	}
}
