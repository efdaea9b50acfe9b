package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A service whose cursor never ends used to be paged until Ctrl-C (449
// requests in 20 s). The sync now stops after a few requests, exits 7 (a
// failed read) and says in its one line that the service misbehaves.
func TestSyncAgainstEndlessPagesExitsSeven(t *testing.T) {
	h := newHarness(t)
	var lists atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/batches" {
			http.NotFound(w, r)
			return
		}
		n := lists.Add(1)
		w.Header().Set("Content-Type", "application/json")
		// The same batch on every page, and a new cursor each time.
		fmt.Fprintf(w, `{"batches":[{"id":"bat_1","customer_ref":"CUST-1","created_at":"2026-11-29T09:00:00Z",`+
			`"updated_at":"2026-11-29T10:00:00Z","items":[{"id":"itm_1","batch_id":"bat_1","kind":"selfie",`+
			`"file_name":"s.jpg","media_type":"image/jpeg","size_bytes":1,"status":"pending","attempt":1,`+
			`"updated_at":"2026-11-29T10:00:00Z"}]}],"next_cursor":"c%d"}`, n)
	}))
	t.Cleanup(ts.Close)
	h.env["REVIEWER_API_URL"] = ts.URL
	_, errs := h.wantWithin(time.Minute, 7, "sync")
	if !strings.Contains(errs, "the service misbehaves") || !strings.Contains(errs, "never end") {
		t.Fatalf("stderr does not say the service misbehaves: %q", errs)
	}
	if n := lists.Load(); n > 3 {
		t.Fatalf("%d pages asked of a service whose pages never end", n)
	}
	// What came before the endless pages is kept.
	out, _ := h.want(0, "items", "--json")
	if !strings.Contains(out, `"itm_1"`) {
		t.Fatalf("the first page was not kept: %s", out)
	}
}

// An item the console cannot read is stored as invalid and the sync goes
// on; `item --json` shows what the service sent for it, and no verdict.
func TestSyncKeepsAnUnreadableItemAsSent(t *testing.T) {
	h := newHarness(t)
	const huge = `{"id":"itm_huge","batch_id":"bat_1","status":"scored","risk_score":1e400,"recommendation":"forward","updated_at":"2026-11-29T10:00:00Z"}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/batches" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"batches":[{"id":"bat_1","customer_ref":"CUST-1","created_at":"2026-11-29T09:00:00Z",`+
			`"updated_at":"2026-11-29T10:00:00Z","items":[`+huge+`]}],"next_cursor":null}`)
	}))
	t.Cleanup(ts.Close)
	h.env["REVIEWER_API_URL"] = ts.URL
	out, _ := h.want(0, "sync")
	if !strings.Contains(out, "1 invalid") {
		t.Fatalf("sync: %s", out)
	}
	out, _ = h.want(0, "item", "itm_huge", "--json")
	var got struct {
		Status    string  `json:"status"`
		RiskScore *int    `json:"risk_score"`
		Rec       *string `json:"recommendation"`
		Raw       string  `json:"raw"`
		Problem   string  `json:"problem"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "invalid" || got.RiskScore != nil || got.Rec != nil || got.Raw != huge || !strings.Contains(got.Problem, "1e400") {
		t.Fatalf("item --json: %+v", got)
	}
	out, _ = h.want(0, "item", "itm_huge")
	if !strings.Contains(out, "the service sent: ") || !strings.Contains(out, "1e400") {
		t.Fatalf("item: %s", out)
	}
}
