package review_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// A service whose pages hand back a cursor already given would keep a sync
// paging (and writing) for ever: the sync stops at the repeat, keeps the
// pages it applied, and says the answer is broken.
func TestSyncStopsOnACursorItWasGivenBefore(t *testing.T) {
	srv := screenapi.New(screenapi.Options{Token: token})
	inner := srv.Handler()
	var lists atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/batches" {
			inner.ServeHTTP(w, r)
			return
		}
		// a, b, a, b, ...: the first page is the real first page of one
		// batch, each of the rest a new batch (so that only the cursor
		// repeats).
		n := lists.Add(1)
		next := map[bool]string{true: "a", false: "b"}[n%2 == 1]
		if n == 1 {
			q := r.URL.Query()
			q.Set("limit", "1")
			r.URL.RawQuery = q.Encode()
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, r)
			body := strings.Replace(rec.Body.String(), `"next_cursor":"`, `"next_cursor":"a","was":"`, 1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"batches":[{"id":"bat_loop_%d","customer_ref":"C","created_at":"2026-11-29T10:00:00Z",`+
			`"updated_at":"2026-11-29T10:00:00Z","items":[]}],"next_cursor":"%s"}`, n, next)
	}))
	t.Cleanup(ts.Close)
	db, api, svc := newService(t, ts.URL, filepath.Join(t.TempDir(), "cache.db"))
	t.Cleanup(func() { api.Close(); db.Close() })

	// Generous: a sync that pages in a circle ends only at this deadline.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := svc.Sync.Sync(ctx, nil)
	if policy.ErrorCode(err) != policy.CodeInvalidResponse || !strings.Contains(err.Error(), "cursor") {
		t.Fatalf("want INVALID_RESPONSE about the cursor, got %v (after %d pages, %d lists)", err, p.Pages, lists.Load())
	}
	if n := lists.Load(); n != 3 {
		t.Fatalf("the service was asked %d times; want 3 (\"\", a, b: then a again)", n)
	}
	if nb, _, _ := db.Items.Counts(context.Background()); nb != 3 || p.Pages != 3 {
		t.Fatalf("the pages before the repeat: %d batches in the cache, %d pages applied", nb, p.Pages)
	}
}
