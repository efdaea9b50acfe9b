package screenapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/screenapi"
)

// Version 1.1 over raw HTTP: the names and codes of the contract, spelled
// out here rather than taken from the console's structs.

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const anaTok, benTok = "tok-ana", "tok-ben"

func start11(t *testing.T, version string) (*screenapi.Server, *clock) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: version, Now: clk.Now,
		Reviewers: []screenapi.Reviewer{{Name: "ana", DisplayName: "Ana Lima", Token: anaTok}, {Name: "ben", DisplayName: "Ben Okafor", Token: benTok}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, clk
}

type req struct {
	tok, method, path, key, ifMatch, body string
}

func call(t *testing.T, srv *screenapi.Server, r req) (int, map[string]any) {
	t.Helper()
	hr, _ := http.NewRequest(r.method, srv.URL()+r.path, strings.NewReader(r.body))
	if r.tok != "" {
		hr.Header.Set("Authorization", "Bearer "+r.tok)
	}
	if r.key != "" {
		hr.Header.Set("Idempotency-Key", r.key)
	}
	if r.ifMatch != "" {
		hr.Header.Set("If-Match", r.ifMatch)
	}
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

func TestMeKnowsEachReviewerByToken(t *testing.T) {
	srv, _ := start11(t, "")
	for tok, want := range map[string][2]string{anaTok: {"ana", "Ana Lima"}, benTok: {"ben", "Ben Okafor"}} {
		st, m := call(t, srv, req{tok: tok, method: "GET", path: "/v1/me"})
		if st != 200 || m["reviewer"] != want[0] || m["display_name"] != want[1] {
			t.Fatalf("%s: %d %v", want[0], st, m)
		}
	}
	for _, tok := range []string{"", "tok-nobody"} {
		if st, m := call(t, srv, req{tok: tok, method: "GET", path: "/v1/me"}); st != 401 || m["error_code"] != "UNAUTHENTICATED" {
			t.Fatalf("token %q: %d %v", tok, st, m)
		}
	}
}

func TestItemCarriesTheVersion11Fields(t *testing.T) {
	srv, _ := start11(t, "")
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	st, m := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/items/" + id})
	if st != 200 {
		t.Fatal(st)
	}
	for _, k := range []string{"revision", "status_since", "file_versions", "claim", "notes"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("item lacks %q: %v", k, m)
		}
	}
	if m["revision"] != 1.0 || m["claim"] != nil || len(m["notes"].([]any)) != 0 || len(m["file_versions"].([]any)) != 1 {
		t.Fatalf("%v", m)
	}
	fv := m["file_versions"].([]any)[0].(map[string]any)
	for _, k := range []string{"version", "file_name", "media_type", "size_bytes", "uploaded_at"} {
		if _, ok := fv[k]; !ok {
			t.Fatalf("file version lacks %q: %v", k, fv)
		}
	}
	// The batch listing carries them too.
	_, page := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/batches?limit=1"})
	first := page["batches"].([]any)[0].(map[string]any)["items"].([]any)[0].(map[string]any)
	if _, ok := first["revision"]; !ok {
		t.Fatalf("listed item lacks revision: %v", first)
	}
}

func TestIfMatch(t *testing.T) {
	srv, clk := start11(t, "")
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	path := "/v1/items/" + id + "/resubmissions"
	st, m := call(t, srv, req{tok: anaTok, method: "POST", path: path, key: "k1", ifMatch: `"5"`})
	if st != 412 || m["error_code"] != "ITEM_CHANGED" || m["error_message"] == "" {
		t.Fatalf("stale If-Match: %d %v", st, m)
	}
	if it, _ := m["item"].(map[string]any); it == nil || it["id"] != id || it["revision"] != 1.0 {
		t.Fatalf("412 must carry the item as it is now: %v", m)
	}
	if srv.Analyses(id) != 0 {
		t.Fatal("a 412 ran an analysis")
	}
	clk.Add(time.Minute)
	st, m = call(t, srv, req{tok: anaTok, method: "POST", path: path, key: "k2", ifMatch: `"1"`})
	if st != 200 || m["revision"] != 2.0 || m["status"] != "scored" {
		t.Fatalf("matching If-Match: %d %v", st, m)
	}
	if m["status_since"] != "2026-11-29T10:01:00Z" {
		t.Fatalf("status_since follows the new status: %v", m["status_since"])
	}
	// A known key replays its stored answer, whatever its If-Match.
	if st, again := call(t, srv, req{tok: anaTok, method: "POST", path: path, key: "k2", ifMatch: `"1"`}); st != 200 || again["revision"] != 2.0 {
		t.Fatalf("replay: %d %v", st, again)
	}
	if st, _ := call(t, srv, req{tok: anaTok, method: "POST", path: path, key: "k3", ifMatch: "seven"}); st != 422 {
		t.Fatalf("malformed If-Match: %d", st)
	}
	if srv.Analyses(id) != 1 {
		t.Fatalf("analyses %d", srv.Analyses(id))
	}
	// A file request and a note carry If-Match as well.
	fixed := srv.FindCode("DECODE_FAILED")
	if st, m := call(t, srv, req{tok: anaTok, method: "POST", path: "/v1/items/" + fixed + "/file-requests", key: "k4", ifMatch: `"9"`,
		body: `{"reason":"DECODE_FAILED","message":"again please"}`}); st != 412 || m["error_code"] != "ITEM_CHANGED" {
		t.Fatalf("file request: %d %v", st, m)
	}
	if st, m := call(t, srv, req{tok: anaTok, method: "POST", path: "/v1/items/" + fixed + "/notes", key: "k5", ifMatch: `"9"`,
		body: `{"text":"hello"}`}); st != 412 || m["error_code"] != "ITEM_CHANGED" {
		t.Fatalf("note: %d %v", st, m)
	}
}

func TestTwoReviewersOnOneRevisionPayForOneAnalysis(t *testing.T) {
	srv, _ := start11(t, "")
	id := srv.FindCode("SOURCE_UNREACHABLE")
	srv.SetAnalysisLatency(id, 150*time.Millisecond)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i, tok := range []string{anaTok, benTok} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = call(t, srv, req{tok: tok, method: "POST", path: "/v1/items/" + id + "/resubmissions", key: "key-" + tok, ifMatch: `"1"`})
		}()
	}
	wg.Wait()
	if srv.Analyses(id) != 1 || codes[0]+codes[1] != 200+412 {
		t.Fatalf("analyses %d, answers %v", srv.Analyses(id), codes)
	}
}

func TestClaims(t *testing.T) {
	srv, clk := start11(t, "")
	id := srv.FindCode("CLASSIFIER_UNAVAILABLE")
	claim := "/v1/items/" + id + "/claim"
	for _, body := range []string{"", `{"ttl_seconds": 30}`, `{"ttl_seconds": 3601}`, `{"ttl_seconds": 90.5}`} {
		if st, m := call(t, srv, req{tok: anaTok, method: "PUT", path: claim, body: body}); st != 422 || m["error_code"] != "VALIDATION_FAILED" {
			t.Fatalf("body %q: %d %v", body, st, m)
		}
	}
	st, m := call(t, srv, req{tok: anaTok, method: "PUT", path: claim, body: `{"ttl_seconds": 900}`})
	c, _ := m["claim"].(map[string]any)
	if st != 200 || c == nil || c["reviewer"] != "ana" || c["expires_at"] != "2026-11-29T10:15:00Z" || m["revision"] != 1.0 {
		t.Fatalf("claim: %d %v", st, m)
	}
	// Renewing one's own claim.
	clk.Add(5 * time.Minute)
	if st, m = call(t, srv, req{tok: anaTok, method: "PUT", path: claim, body: `{"ttl_seconds": 900}`}); st != 200 || m["claim"].(map[string]any)["expires_at"] != "2026-11-29T10:20:00Z" {
		t.Fatalf("renew: %d %v", st, m)
	}
	// Ben meets 409 CLAIMED with the item everywhere, and nothing runs.
	for _, r := range []req{
		{method: "PUT", path: claim, body: `{"ttl_seconds": 900}`},
		{method: "DELETE", path: claim},
		{method: "POST", path: "/v1/items/" + id + "/resubmissions", key: "b1"},
	} {
		r.tok = benTok
		st, m := call(t, srv, r)
		it, _ := m["item"].(map[string]any)
		if st != 409 || m["error_code"] != "CLAIMED" || it == nil || it["claim"].(map[string]any)["reviewer"] != "ana" {
			t.Fatalf("%s %s: %d %v", r.method, r.path, st, m)
		}
	}
	if srv.Analyses(id) != 0 {
		t.Fatal("a refused request ran")
	}
	// A note is accepted whoever holds the item, and moves the revision.
	if st, m := call(t, srv, req{tok: benTok, method: "POST", path: "/v1/items/" + id + "/notes", key: "b2", body: `{"text":"mine"}`}); st != 201 ||
		m["author"] != "ben" || len(srv.Notes(id)) != 1 || srv.Revision(id) != 2 {
		t.Fatalf("ben's note on ana's item: %d %v (revision %d)", st, m, srv.Revision(id))
	}
	// The claim expires: an expired claim is no claim.
	clk.Add(15*time.Minute + time.Second)
	if _, m := call(t, srv, req{tok: benTok, method: "GET", path: "/v1/items/" + id}); m["claim"] != nil {
		t.Fatalf("expired claim still shown: %v", m["claim"])
	}
	if st, m := call(t, srv, req{tok: benTok, method: "PUT", path: claim, body: `{"ttl_seconds": 60}`}); st != 200 || m["claim"].(map[string]any)["reviewer"] != "ben" {
		t.Fatalf("ben claims: %d %v", st, m)
	}
	// Claims leave the revision alone (contract 1.1, amended), but move
	// updated_at so that a sync brings them.
	clk.Add(time.Second)
	_, now := call(t, srv, req{tok: benTok, method: "GET", path: "/v1/items/" + id})
	rev, before := srv.Revision(id), now["updated_at"]
	if st, m := call(t, srv, req{tok: benTok, method: "DELETE", path: claim}); st != 200 || m["claim"] != nil || srv.Revision(id) != rev || m["updated_at"] == before {
		t.Fatalf("release: %d %v", st, m)
	}
	if st, _ := call(t, srv, req{tok: anaTok, method: "PUT", path: "/v1/items/itm_nope/claim", body: `{"ttl_seconds": 60}`}); st != 404 {
		t.Fatalf("unknown item: %d", st)
	}
}

func TestNotes(t *testing.T) {
	srv, _ := start11(t, "")
	id := srv.FindCode("DECODE_FAILED")
	path := "/v1/items/" + id + "/notes"
	for _, text := range []string{"", "   ", "bell\u0007", strings.Repeat("x", 4001)} {
		b, _ := json.Marshal(map[string]string{"text": text})
		if st, m := call(t, srv, req{tok: benTok, method: "POST", path: path, key: "bad", body: string(b)}); st != 422 || m["error_code"] != "VALIDATION_FAILED" {
			t.Fatalf("text %q: %d %v", text, st, m)
		}
	}
	if st, _ := call(t, srv, req{tok: benTok, method: "POST", path: path, body: `{"text":"x"}`}); st != 422 {
		t.Fatal("a note without a key")
	}
	st, n := call(t, srv, req{tok: benTok, method: "POST", path: path, key: "n1", body: `{"text":"  Customer called,\nnew scan coming.  "}`})
	if st != 201 || n["author"] != "ben" || n["text"] != "Customer called,\nnew scan coming." || !strings.HasPrefix(n["id"].(string), "nte_") || n["created_at"] == nil {
		t.Fatalf("note: %d %v", st, n)
	}
	if st, again := call(t, srv, req{tok: benTok, method: "POST", path: path, key: "n1", body: `{"text":"Customer called"}`}); st != 201 || again["id"] != n["id"] {
		t.Fatalf("replay: %d %v", st, again)
	}
	_, it := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/items/" + id})
	if notes := it["notes"].([]any); len(notes) != 1 || it["revision"] != 2.0 {
		t.Fatalf("item after one note: %v", it)
	}
	if st, _ := call(t, srv, req{tok: benTok, method: "POST", path: path, key: strings.Repeat("k", 8), body: `{"text":"` + strings.Repeat("é", 4000) + `"}`}); st != 201 {
		t.Fatalf("4000 characters are allowed: %d", st)
	}
}

func TestVersion10LeavesItAllOut(t *testing.T) {
	srv, _ := start11(t, screenapi.Version10)
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	for _, r := range []req{
		{method: "GET", path: "/v1/me"},
		{method: "PUT", path: "/v1/items/" + id + "/claim", body: `{"ttl_seconds": 900}`},
		{method: "DELETE", path: "/v1/items/" + id + "/claim"},
		{method: "POST", path: "/v1/items/" + id + "/notes", key: "n", body: `{"text":"hi"}`},
	} {
		r.tok = anaTok
		if st, m := call(t, srv, r); st != 404 || m["error_code"] != "NOT_FOUND" {
			t.Fatalf("%s %s: %d %v", r.method, r.path, st, m)
		}
	}
	_, m := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/items/" + id})
	for _, k := range []string{"revision", "status_since", "file_versions", "claim", "notes"} {
		if _, ok := m[k]; ok {
			t.Fatalf("a 1.0 item carries %q: %v", k, m)
		}
	}
	// If-Match means nothing to a 1.0 service.
	if st, _ := call(t, srv, req{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/resubmissions", key: "k", ifMatch: `"42"`}); st != 200 {
		t.Fatalf("1.0 resubmit: %d", st)
	}
}

func TestFaultsReachTheVersion11Endpoints(t *testing.T) {
	srv, _ := start11(t, "")
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPMe, Times: 1})
	if st, m := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/me"}); st != 503 || m["error_code"] != "SERVICE_UNAVAILABLE" {
		t.Fatalf("%d %v", st, m)
	}
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPClaim, Times: 1})
	if st, _ := call(t, srv, req{tok: anaTok, method: "PUT", path: "/v1/items/" + id + "/claim", body: `{"ttl_seconds": 60}`}); st != 429 {
		t.Fatalf("claim: %d", st)
	}
	if srv.Arrivals(screenapi.EPMe) != 1 || srv.Arrivals(screenapi.EPClaim) != 1 || srv.ClaimOf(id) != "" {
		t.Fatal("arrivals or a claim made through a fault")
	}
}
