package screenapi_test

import (
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

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
