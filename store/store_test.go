package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// MustOpenDB opens a cache in a temporary file.
func MustOpenDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(filepath.Join(tb.TempDir(), "cache.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func scored(id, batch string, score int, at time.Time) policy.Item {
	return policy.Item{ID: id, BatchID: batch, Kind: policy.KindIDDocument, FileName: id + ".jpg", MediaType: "image/jpeg",
		Status: policy.StatusScored, RiskScore: &score, Recommendation: policy.RecommendReview,
		Layers: map[string]float64{"ela": 0.4}, Attempt: 1, UpdatedAt: at}
}

func failed(id, batch string, code policy.Code, at time.Time) policy.Item {
	return policy.Item{ID: id, BatchID: batch, Kind: policy.KindSelfie, FileName: id + ".jpg", MediaType: "image/jpeg",
		Status: policy.StatusError, ErrorCode: code, ReportedCode: string(code), Attempt: 1, UpdatedAt: at}
}

func batchOf(id string, at time.Time, items ...policy.Item) policy.Batch {
	return policy.Batch{ID: id, CustomerRef: "CUST-" + id, CreatedAt: at, UpdatedAt: at, Items: items}
}

func TestOpenCreatesAPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "cache.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	// Opening again runs no migration twice.
	db2, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
}

func TestApplyPageWritesOnlyChanges(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	page := []policy.Batch{
		batchOf("b1", t0, scored("i1", "b1", 10, t0), failed("i2", "b1", policy.CodeDecodeFailed, t0)),
		batchOf("b2", t0.Add(time.Minute), failed("i3", "b2", policy.CodeInternal, t0.Add(time.Minute))),
	}
	n, err := db.Sync.ApplyPage(ctx, page)
	if err != nil || n.Batches != 2 || n.Items != 3 {
		t.Fatalf("%+v %v", n, err)
	}
	pos, _ := db.Sync.SyncPosition(ctx)
	if !pos.Equal(t0.Add(time.Minute)) {
		t.Fatalf("position %v", pos)
	}
	n, err = db.Sync.ApplyPage(ctx, page)
	if err != nil || n.Batches != 0 || n.Items != 0 {
		t.Fatalf("the same page again wrote %+v %v", n, err)
	}
	// A newer state replaces; an older one never does.
	newer := page[1]
	newer.UpdatedAt = t0.Add(2 * time.Minute)
	newer.Items = []policy.Item{scored("i3", "b2", 55, t0.Add(2*time.Minute))}
	if n, _ = db.Sync.ApplyPage(ctx, []policy.Batch{newer}); n.Items != 1 {
		t.Fatalf("newer: %+v", n)
	}
	if n, _ = db.Sync.ApplyPage(ctx, page[1:]); n.Items != 0 {
		t.Fatalf("older state overwrote a newer one: %+v", n)
	}
	it, _ := db.Items.Item(ctx, "i3")
	if it.Status != policy.StatusScored || *it.RiskScore != 55 || it.ErrorCode != "" {
		t.Fatalf("%+v", it)
	}
}

func TestTheCacheRefusesAVerdictOnAnItemThatWasNotScored(t *testing.T) {
	db := MustOpenDB(t)
	bad := failed("i1", "b1", policy.CodeClassifierTimeout, t0)
	score := 12
	bad.RiskScore = &score
	bad.Recommendation = policy.RecommendForward
	// itemArgs drops the verdict of a non-scored item...
	if _, err := db.Sync.ApplyPage(context.Background(), []policy.Batch{batchOf("b1", t0, bad)}); err != nil {
		t.Fatal(err)
	}
	it, _ := db.Items.Item(context.Background(), "i1")
	if it.RiskScore != nil || it.Recommendation != "" || it.Checked() {
		t.Fatalf("stored a verdict on an error: %+v", it)
	}
	// ...and a scored item without a score is refused by the schema.
	broken := scored("i2", "b1", 1, t0)
	broken.RiskScore = nil
	if _, err := db.Sync.ApplyPage(context.Background(), []policy.Batch{batchOf("b1", t0, broken)}); err == nil {
		t.Fatal("a scored item without a score was stored")
	}
}

func seedOne(t *testing.T, db *store.DB, code policy.Code) {
	t.Helper()
	if _, err := db.Sync.ApplyPage(context.Background(), []policy.Batch{batchOf("b1", t0, failed("i1", "b1", code, t0))}); err != nil {
		t.Fatal(err)
	}
}

func allow(policy.Situation) error { return nil }

func TestOneOpenActionPerItemAcrossConnections(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.db")
	db1, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db1.Close()
	seedOne(t, db1, policy.CodeInternal)
	db2, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			db := []*store.DB{db1, db2}[i%2]
			// The check sees no open action in either; the index decides.
			_, errs[i] = db.Outbox.CreateAction(context.Background(), store.Action{ItemID: "i1", Kind: policy.ActionResubmit,
				Key: fmt.Sprintf("key-%d", i), Reviewer: "ana"}, nil, allow)
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if policy.ErrorCode(err) != policy.CodeActionOpen {
			t.Fatalf("unexpected refusal: %v", err)
		}
	}
	out, _ := db1.Outbox.Outbox(context.Background())
	if ok != 1 || len(out) != 1 {
		t.Fatalf("%d actions created, %d in the outbox; want 1", ok, len(out))
	}
}

func TestLeaseFinishAndFence(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	now := t0
	db.SetClock(func() time.Time { return now })
	seedOne(t, db, policy.CodeClassifierTimeout)
	a, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i1", Kind: policy.ActionResubmit, Key: "k1", Reviewer: "ana"}, nil, allow)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i1", Kind: policy.ActionResubmit, Key: "k1", Reviewer: "ana"}, nil, allow); policy.ErrorCode(err) != policy.CodeActionOpen {
		t.Fatalf("second open action: %v", err)
	}
	c, ok, err := db.Outbox.LeaseAction(ctx, a.ID, time.Minute)
	if err != nil || !ok || c.State != policy.ActionSending || c.Sends != 1 {
		t.Fatalf("claim: %+v %v %v", c, ok, err)
	}
	if _, ok, _ := db.Outbox.LeaseAction(ctx, a.ID, time.Minute); ok {
		t.Fatal("a sending action was claimed twice")
	}
	if p, _ := db.Outbox.PendingActions(ctx); len(p) != 0 {
		t.Fatalf("a leased action is pending: %+v", p)
	}
	if held, ok, _ := db.Outbox.LeaseAction(ctx, a.ID, time.Minute); ok || held.State != policy.ActionSending || !held.LeaseUntil.Equal(t0.Add(time.Minute)) {
		t.Fatalf("a refused claim must show the holder's lease: %+v", held)
	}
	now = now.Add(2 * time.Minute) // the sender died; its lease ran out
	if p, _ := db.Outbox.PendingActions(ctx); len(p) != 1 {
		t.Fatalf("an expired lease is not pending: %+v", p)
	}
	c, ok, _ = db.Outbox.LeaseAction(ctx, a.ID, time.Minute)
	if !ok || c.Key != "k1" || c.Sends != 2 || c.State != policy.ActionUnknown {
		t.Fatalf("a take-over must reconcile (unknown), with the same key: %+v", c)
	}
	// The first sender wakes up: it is fenced, and writes nothing.
	stale, err := db.Outbox.FinishAction(ctx, a.ID, store.Finish{On: policy.EventAnswered, Lease: 1, Event: "done",
		Attempts: []policy.Attempt{{Number: 1, Start: now, Class: policy.ClassOK, RequestTimeout: time.Second}}})
	if !errors.Is(err, store.ErrFenced) || stale.State != policy.ActionUnknown || stale.Sends != 2 {
		t.Fatalf("a stale sender finished: %+v %v", stale, err)
	}
	s := 40
	answer := scored("i1", "b1", s, now)
	f, err := db.Outbox.FinishAction(ctx, a.ID, store.Finish{On: policy.EventAnswered, Lease: c.Sends, Item: &answer, Event: "done",
		Attempts: []policy.Attempt{{Number: 1, Start: now, Class: policy.ClassOK, RequestTimeout: time.Second}}})
	if err != nil || f.State != policy.ActionDone {
		t.Fatalf("%+v %v", f, err)
	}
	it, _ := db.Items.Item(ctx, "i1")
	if it.Status != policy.StatusScored || it.OpenAction() != "" || it.Action.State != policy.ActionDone {
		t.Fatalf("%+v", it)
	}
	at, _ := db.Evidence.ItemAttempts(ctx, "i1")
	au, _ := db.Evidence.ItemAudit(ctx, "i1")
	if len(at) != 2 || len(au) != 5 { // requested, sending, taken over, stale outcome ignored, done
		t.Fatalf("attempts %d audit %d", len(at), len(au))
	}
}

func TestCancelOnlyQueued(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	seedOne(t, db, policy.CodeDecodeFailed)
	a, _ := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i1", Kind: policy.ActionFileRequest, Key: "k", Reviewer: "ana", Message: "m"}, nil, allow)
	c, _, _ := db.Outbox.LeaseAction(ctx, a.ID, time.Minute)
	if _, err := db.Outbox.CancelAction(ctx, a.ID, "ana"); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("cancelled a sending action: %v", err)
	}
	db.Outbox.FinishAction(ctx, a.ID, store.Finish{On: policy.EventNotSent, Lease: c.Sends, Event: "queued"})
	if c, err := db.Outbox.CancelAction(ctx, a.ID, "ana"); err != nil || c.State != policy.ActionCancelled {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestAuditIsAppendOnly(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	seedOne(t, db, policy.CodeDecodeFailed)
	if err := db.Evidence.Audit(ctx, store.AuditEntry{Reviewer: "ana", ItemID: "i1", Event: "viewed"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, `UPDATE audit SET event = 'x'`); err == nil {
		t.Fatal("an audit entry was changed")
	}
	if err := db.Exec(ctx, `DELETE FROM audit`); err == nil {
		t.Fatal("an audit entry was deleted")
	}
}

func TestItemsFilters(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0,
		scored("i1", "b1", 10, t0), failed("i2", "b1", policy.CodeDecodeFailed, t0),
		failed("i3", "b1", policy.CodeClassifierTimeout, t0), failed("i4", "b1", policy.CodeInternal, t0))})
	db.Outbox.CreateAction(ctx, store.Action{ItemID: "i4", Kind: policy.ActionResubmit, Key: "k4", Reviewer: "ana"}, nil, allow)
	count := func(f store.ItemFilter) int {
		rows, err := db.Items.Items(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	if n := count(store.ItemFilter{}); n != 4 {
		t.Errorf("all %d", n)
	}
	if n := count(store.ItemFilter{Retryable: true}); n != 2 {
		t.Errorf("retryable %d", n)
	}
	if n := count(store.ItemFilter{NeedsAction: true}); n != 2 { // i2, i3; i4 has a queued action
		t.Errorf("needs action %d", n)
	}
	if n := count(store.ItemFilter{Code: policy.CodeDecodeFailed}); n != 1 {
		t.Errorf("code %d", n)
	}
	if n := count(store.ItemFilter{Search: "i3"}); n != 1 {
		t.Errorf("search %d", n)
	}
	bs, _ := db.Items.Batches(ctx, policy.DefaultBands(), "", 0)
	if len(bs) != 1 || bs[0].Scored != 1 || bs[0].Errors != 3 || bs[0].Retryable != 2 || bs[0].OpenActions != 1 {
		t.Fatalf("%+v", bs)
	}
}

// The window opens the cache with a smaller page cache per connection; a
// command keeps SQLite's default.
func TestPageCacheIsSetForEveryConnection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	ctx := context.Background()
	small, err := store.Open(path, store.PageCache(512))
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	plain, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	// Several at once: the pool opens a connection for each.
	var wg sync.WaitGroup
	got := make([]int, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := small
			if i%2 == 1 {
				db = plain
			}
			got[i], errs[i] = db.PageCacheKiB(ctx)
		}()
	}
	wg.Wait()
	for i, n := range got {
		want := 512
		if i%2 == 1 {
			want = 2000
		}
		if errs[i] != nil || n != want {
			t.Fatalf("connection %d: page cache %d KiB (%v), want %d", i, n, errs[i], want)
		}
	}
}
