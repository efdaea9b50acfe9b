package screenapi_test

import (
	"sync"
	"testing"
	"time"
)

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
