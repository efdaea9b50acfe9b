package screenapi_test

import (
	"net/url"
	"testing"
	"time"
)

// seededWaits reads, from the batch listing, how long before its last
// update each item that waits (not scored) entered its status.
func seededWaits(t *testing.T) map[string]time.Duration {
	t.Helper()
	srv, _ := start11(t, "")
	out := map[string]time.Duration{}
	cursor := ""
	for {
		path := "/v1/batches?limit=50"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		st, page := call(t, srv, req{tok: anaTok, method: "GET", path: path})
		if st != 200 {
			t.Fatalf("listing: %d %v", st, page)
		}
		for _, b := range page["batches"].([]any) {
			for _, raw := range b.(map[string]any)["items"].([]any) {
				it := raw.(map[string]any)
				if it["status"] == "scored" {
					continue
				}
				since, err1 := time.Parse(time.RFC3339, it["status_since"].(string))
				updated, err2 := time.Parse(time.RFC3339, it["updated_at"].(string))
				if err1 != nil || err2 != nil {
					t.Fatalf("%v: %v %v", it["id"], err1, err2)
				}
				out[it["id"].(string)] = updated.Sub(since)
			}
		}
		next, _ := page["next_cursor"].(string)
		if next == "" {
			return out
		}
		cursor = next
	}
}

// The demo's waiting items entered their status 0 to 9 days before their
// last update, spread so that fresh, warning (2 d) and overdue (5 d) items
// all exist, and the same on every run.
func TestTheSeedSpreadsStatusSinceOverDays(t *testing.T) {
	first, second := seededWaits(t), seededWaits(t)
	var fresh, warn, overdue int
	for id, w := range first {
		if w < 0 || w >= 9*24*time.Hour {
			t.Fatalf("%s entered its status %v before its last update", id, w)
		}
		if second[id] != w {
			t.Fatalf("%s: %v, then %v on a second run", id, w, second[id])
		}
		switch {
		case w >= 5*24*time.Hour:
			overdue++
		case w >= 2*24*time.Hour:
			warn++
		default:
			fresh++
		}
	}
	if len(first) == 0 || fresh == 0 || warn < 5 || overdue < 5 {
		t.Fatalf("%d waiting items: %d fresh, %d warn, %d overdue", len(first), fresh, warn, overdue)
	}
}
