package screenapi_test

import (
	"testing"
)

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
