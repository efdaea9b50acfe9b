package screenapi_test

import (
	"testing"
	"time"
)

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
	// Renewing one's own claim moves no revision either (contract 1.1, amended).
	clk.Add(5 * time.Minute)
	if st, m = call(t, srv, req{tok: anaTok, method: "PUT", path: claim, body: `{"ttl_seconds": 900}`}); st != 200 || m["claim"].(map[string]any)["expires_at"] != "2026-11-29T10:20:00Z" || m["revision"] != 1.0 || srv.Revision(id) != 1 {
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
