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
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// servePages serves GET /v1/batches from page(n), n counting from 1, and
// counts every request; anything else is a 404.
func servePages(t *testing.T, page func(n int64) string) (*store.DB, *atomic.Int64, func(context.Context) (int, error)) {
	db, lists, _, svc := servePagesTo(t, page)
	return db, lists, func(ctx context.Context) (int, error) {
		p, err := svc.Sync.Sync(ctx, nil)
		return p.Pages, err
	}
}

// servePagesTo is servePages, with the count of the requests on items,
// and the workflow.
func servePagesTo(t *testing.T, page func(n int64) string) (*store.DB, *atomic.Int64, *atomic.Int64, *review.Service) {
	t.Helper()
	var lists, other atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/batches" {
			if strings.HasPrefix(r.URL.Path, "/v1/items") {
				other.Add(1)
			}
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(page(lists.Add(1))))
	}))
	t.Cleanup(ts.Close)
	db, api, svc := newService(t, ts.URL, filepath.Join(t.TempDir(), "cache.db"))
	t.Cleanup(func() { api.Close(); db.Close() })
	return db, &lists, &other, svc
}

func batchJSON(id, updated string, items ...string) string {
	return fmt.Sprintf(`{"id":%q,"customer_ref":"CUST-%s","created_at":"2026-11-29T09:00:00Z","updated_at":%q,"items":[%s]}`,
		id, id, updated, strings.Join(items, ","))
}

func itemJSON(id, batch, updated, rest string) string {
	return fmt.Sprintf(`{"id":%q,"batch_id":%q,"kind":"id_document","file_name":"f.jpg","media_type":"image/jpeg","size_bytes":1,`+
		`"attempt":1,"updated_at":%q,%s}`, id, batch, updated, rest)
}

const scoredRest = `"status":"scored","risk_score":30,"recommendation":"review","layers":{"ela":0.3}`

// One field the console cannot read costs its item, never the sync: the
// rest of the page, and the pages after it, are applied; the item is
// stored as invalid with the text it came as; an id that is not a safe path
// segment is stored as invalid too, and nothing is ever sent for it.
func TestSyncAppliesEverythingAroundAnItemItCannotRead(t *testing.T) {
	const u1, u2 = "2026-11-29T10:00:00Z", "2026-11-29T11:00:00Z"
	page1 := `{"batches":[` + batchJSON("bat_1", u1,
		itemJSON("itm_ok1", "bat_1", u1, scoredRest),
		itemJSON("itm_claim", "bat_1", u1, scoredRest+`,"revision":2,"claim":{"reviewer":"ben","expires_at":"+275760-09-13T00:00:00Z"}`),
		itemJSON("itm_huge", "bat_1", u1, `"status":"scored","risk_score":1e400,"recommendation":"forward"`),
		itemJSON("itm_layer", "bat_1", u1, `"status":"scored","risk_score":5,"recommendation":"forward","layers":{"ela":"0.5"}`),
		`["not","an","item"]`,
		itemJSON(".", "bat_1", u1, `"status":"error","error_code":"CLASSIFIER_TIMEOUT"`),
		itemJSON("..", "bat_1", u1, `"status":"error","error_code":"CLASSIFIER_TIMEOUT"`),
		itemJSON("itm_ok2", "bat_1", u1, `"status":"error","error_code":"CLASSIFIER_TIMEOUT"`),
	) + `],"next_cursor":"p2"}`
	page2 := `{"batches":[` + batchJSON("bat_2", u2, itemJSON("itm_ok3", "bat_2", u2, scoredRest)) + `],"next_cursor":null}`
	db, lists, other, svc := servePagesTo(t, func(n int64) string { return map[int64]string{1: page1}[n] + map[int64]string{2: page2}[n] })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := svc.Sync.Sync(ctx, nil)
	if err != nil || p.Pages != 2 || lists.Load() != 2 || p.Invalid != 6 {
		t.Fatalf("sync: %+v, %d lists: %v", p, lists.Load(), err)
	}
	for _, id := range []string{"itm_ok1", "itm_ok3"} {
		if r, err := db.Items.Item(ctx, id); err != nil || !r.Checked() || *r.RiskScore != 30 {
			t.Fatalf("%s: %+v %v", id, r.Item, err)
		}
	}
	if r, err := db.Items.Item(ctx, "itm_ok2"); err != nil || r.Status != policy.StatusError || r.ErrorCode != policy.CodeClassifierTimeout {
		t.Fatalf("itm_ok2 (after the broken ones on the page): %+v %v", r.Item, err)
	}
	for id, want := range map[string]string{"itm_claim": "275760", "itm_huge": "1e400", "itm_layer": "layers", ".": "relative path", "..": "relative path"} {
		r, err := db.Items.Item(ctx, id)
		if err != nil || r.Status != policy.StatusInvalid || r.Checked() || r.RiskScore != nil || r.Recommendation != "" ||
			r.ErrorCode != policy.CodeInvalidResponse || !strings.Contains(r.Problem, want) || !strings.Contains(r.Raw, fmt.Sprintf(`"id":%q`, id)) {
			t.Fatalf("%s: %+v %v", id, r.Item, err)
		}
	}
	// The item that is not an object has a made id, and its text.
	rows, err := db.Items.Items(ctx, store.ItemFilter{BatchID: "bat_1"})
	if err != nil || len(rows) != 8 {
		t.Fatalf("bat_1 holds %d items: %v", len(rows), err)
	}
	made := 0
	for _, r := range rows {
		if policy.IDProblem(r.ID) != "" && r.ID != "." && r.ID != ".." {
			made++
			if full, _ := db.Items.Item(ctx, r.ID); full.Status != policy.StatusInvalid || full.Raw != `["not","an","item"]` {
				t.Fatalf("the item that is not an object: %+v", full.Item)
			}
		}
	}
	if made != 1 {
		t.Fatalf("%d items with a made id", made)
	}
	if pos, _ := db.Sync.SyncPosition(ctx); !pos.Equal(time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)) {
		t.Fatalf("position %v: the later page was not applied", pos)
	}
	// Nothing is ever sent for "." or "..": not an action, a claim or a note.
	for _, id := range []string{".", ".."} {
		if _, err := svc.Actions.Resubmit(ctx, id); err == nil {
			t.Fatalf("a re-submission of %q was accepted", id)
		}
		_, _ = svc.Team.Claim(ctx, id, policy.DefaultClaimTTL)
		_, _ = svc.Team.Release(ctx, id)
		_, _ = svc.Team.AddNote(ctx, id, "a note")
	}
	_, _ = svc.Actions.Flush(ctx)
	if n := other.Load(); n != 0 {
		t.Fatalf("%d requests on items reached the service", n)
	}
}

// A service whose cursor never ends is stopped at the first page that
// brings nothing new, or once its pages outnumber its batches: with an
// error that says it misbehaves, after a few requests, the pages before
// kept.
func TestSyncStopsAServiceWhosePagesNeverEnd(t *testing.T) {
	const u = "2026-11-29T10:00:00Z"
	one := batchJSON("bat_1", u, itemJSON("itm_1", "bat_1", u, scoredRest))
	for _, c := range []struct {
		name      string
		page      func(n int64) string
		lists     int64
		batches   int
		sentence  string
		wantPages int
	}{
		{"the same page, a new cursor", func(n int64) string {
			return fmt.Sprintf(`{"batches":[%s],"next_cursor":"c%d"}`, one, n)
		}, 2, 1, "brought nothing new", 2},
		{"empty pages, new cursors", func(n int64) string {
			return fmt.Sprintf(`{"batches":[],"next_cursor":"c%d"}`, n)
		}, 1, 0, "brought nothing new", 1},
		{"one batch, a new updated_at on every page", func(n int64) string {
			at := time.Date(2026, 11, 29, 10, 0, int(n), 0, time.UTC).Format(time.RFC3339)
			return fmt.Sprintf(`{"batches":[%s],"next_cursor":"c%d"}`, batchJSON("bat_1", at, itemJSON("itm_1", "bat_1", at, scoredRest)), n)
		}, 3, 1, "more pages than its batches could fill", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, lists, sync := servePages(t, c.page)
			// Generous: a sync that pages for ever ends only at this deadline.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			pages, err := sync(ctx)
			if policy.ErrorCode(err) != policy.CodeInvalidResponse || !strings.Contains(err.Error(), "misbehaves") ||
				!strings.Contains(err.Error(), c.sentence) {
				t.Fatalf("want INVALID_RESPONSE saying the service misbehaves (%s), got %v after %d lists", c.sentence, err, lists.Load())
			}
			if n := lists.Load(); n != c.lists || pages != c.wantPages {
				t.Fatalf("%d lists, %d pages applied; want %d, %d", n, pages, c.lists, c.wantPages)
			}
			if nb, _, _ := db.Items.Counts(ctx); nb != c.batches {
				t.Fatalf("%d batches kept, want %d", nb, c.batches)
			}
		})
	}
}

// On a service that speaks 1.1 (claims and notes offered), a note or a
// claim on an item whose id no path can carry is refused before anything
// is written: never queued to wait for ever.
func TestNothingIsQueuedForAnItemWhoseIDCannotBeSent(t *testing.T) {
	ctx := context.Background()
	var items atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v1/me":
			_, _ = w.Write([]byte(`{"reviewer":"ana","display_name":"Ana"}`))
		case r.URL.Path == "/v1/batches":
			u := "2026-11-29T10:00:00Z"
			_, _ = fmt.Fprintf(w, `{"batches":[%s],"next_cursor":null}`,
				batchJSON("bat_1", u, itemJSON(".", "bat_1", u, `"status":"error","error_code":"CLASSIFIER_TIMEOUT","revision":1`)))
		case r.URL.Path == "/v1/reason-codes": // a sync keeps the list (1.2); a 1.1 service has none
			http.NotFound(w, r)
		default:
			items.Add(1)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	db, api, svc := newService(t, ts.URL, filepath.Join(t.TempDir(), "cache.db"))
	t.Cleanup(func() { api.Close(); db.Close() })
	if _, err := svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if svc.Team.APIVersion() != "1.1" {
		t.Fatalf("version %q", svc.Team.APIVersion())
	}
	if _, err := svc.Team.AddNote(ctx, ".", "a note"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a note on \".\": %v", err)
	}
	if _, err := svc.Team.Claim(ctx, ".", policy.DefaultClaimTTL); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a claim on \".\": %v", err)
	}
	if notes, err := svc.Actions.OutboxNotes(ctx); err != nil || len(notes) != 0 {
		t.Fatalf("queued notes %+v %v", notes, err)
	}
	if n := items.Load(); n != 0 {
		t.Fatalf("%d requests on items reached the service", n)
	}
}

// A service that makes up a new batch on every page is told apart from
// real data by nothing but the count: a sync stops at the most pages it
// reads (REVIEWER_SYNC_MAX_PAGES), saying the service misbehaves.
func TestSyncStopsAtTheMostPagesItReads(t *testing.T) {
	_, lists, _, svc := servePagesTo(t, func(n int64) string {
		u := "2026-11-29T10:00:00Z"
		id := fmt.Sprintf("bat_%d", n)
		return fmt.Sprintf(`{"batches":[%s],"next_cursor":"c%d"}`, batchJSON(id, u, itemJSON("itm_"+id, id, u, scoredRest)), n)
	})
	svc, err := svc.With(func(c *review.Config) { c.MaxSyncPages = 5 })
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Sync.Sync(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "misbehaves") || !strings.Contains(err.Error(), "REVIEWER_SYNC_MAX_PAGES") {
		t.Fatalf("sync: %v", err)
	}
	if n := lists.Load(); n != 5 {
		t.Fatalf("%d pages asked for, want 5", n)
	}
}

// A batch that a service sends again later in the same sync, as it was,
// is held, not taken in twice, and not mistaken for one that another sync
// of the cache wrote meanwhile (SyncProgress.ByOthers).
func TestABatchSentTwiceInOneSyncIsCountedOnce(t *testing.T) {
	const u, v = "2026-11-29T10:00:00Z", "2026-11-29T10:05:00Z"
	one := batchJSON("bat_1", u, itemJSON("itm_1", "bat_1", u, scoredRest))
	two := batchJSON("bat_2", v, itemJSON("itm_2", "bat_2", v, scoredRest), itemJSON("itm_3", "bat_2", v, scoredRest))
	_, lists, _, svc := servePagesTo(t, func(n int64) string {
		if n == 1 {
			return fmt.Sprintf(`{"batches":[%s],"next_cursor":"c1"}`, one)
		}
		return fmt.Sprintf(`{"batches":[%s,%s],"next_cursor":null}`, one, two)
	})
	p, err := svc.Sync.Sync(context.Background(), nil)
	if err != nil || lists.Load() != 2 {
		t.Fatalf("sync: %v after %d lists", err, lists.Load())
	}
	if p.Pages != 2 || p.Batches != 2 || p.Items != 3 || p.Changed != 3 || p.Held != 1 || p.ByOthers != 0 {
		t.Fatalf("want 2 pages, 2 batches, 3 items, 3 changed, 1 held, none by others: %+v", p)
	}
}
