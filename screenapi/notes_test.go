package screenapi_test

import (
	"encoding/json"
	"strings"
	"testing"
)

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
