package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

func TestEnteredStatusIsRecordedWhenTheStatusChanges(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	t1, t2, t3 := t0, t0.Add(time.Hour), t0.Add(2*time.Hour)
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t1, failed("i1", "b1", policy.CodeInternal, t1))}); err != nil {
		t.Fatal(err)
	}
	entered := func() time.Time {
		r, err := db.Items.Item(ctx, "i1")
		if err != nil {
			t.Fatal(err)
		}
		return r.EnteredStatus
	}
	if got := entered(); !got.Equal(t1) {
		t.Fatalf("first seen: %v", got)
	}
	// The same status, a newer answer (another attempt): the age goes on.
	again := failed("i1", "b1", policy.CodeClassifierTimeout, t2)
	again.Attempt = 2
	db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t2, again)})
	if got := entered(); !got.Equal(t1) {
		t.Fatalf("same status moved the age: %v", got)
	}
	// A new status starts a new age.
	db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t3, scored("i1", "b1", 12, t3))})
	if got := entered(); !got.Equal(t3) {
		t.Fatalf("new status: %v", got)
	}
	// The service's status_since, where given (contract 1.1), wins.
	reported := t3.Add(-30 * time.Minute)
	it := scored("i1", "b1", 12, t3.Add(time.Minute))
	it.StatusSince = reported
	db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t3.Add(time.Minute), it)})
	if got := entered(); !got.Equal(reported) {
		t.Fatalf("reported: %v", got)
	}
	// A new status with its status_since.
	t4 := t3.Add(time.Hour)
	next := failed("i1", "b1", policy.CodeInternal, t4)
	next.StatusSince = t4.Add(-time.Minute)
	db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t4, next)})
	if got := entered(); !got.Equal(t4.Add(-time.Minute)) {
		t.Fatalf("new status, reported: %v", got)
	}
}

func TestOlderThanAndSortBySince(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	now := t0.Add(10 * 24 * time.Hour)
	db.SetClock(func() time.Time { return now })
	db.Sync.ApplyPage(ctx, []policy.Batch{
		batchOf("b1", t0, failed("old", "b1", policy.CodeInternal, t0), scored("done", "b1", 5, t0)),
		batchOf("b2", now.Add(-time.Hour), failed("new", "b2", policy.CodeInternal, now.Add(-time.Hour))),
		batchOf("b3", t0.Add(24*time.Hour), failed("mid", "b3", policy.CodeDecodeFailed, t0.Add(24*time.Hour))),
	})
	rows, err := db.Items.Items(ctx, store.ItemFilter{TriageFilter: store.TriageFilter{OlderThan: 5 * 24 * time.Hour}, SortBy: "since"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != "old" || rows[1].ID != "mid" {
		t.Fatalf("overdue oldest first: %+v", rows)
	}
	oldest, err := db.Triage.OldestWaiting(ctx, []string{"b1", "b2", "b3", "nope"})
	if err != nil || len(oldest) != 3 || !oldest["b1"].Equal(t0) || !oldest["b2"].Equal(now.Add(-time.Hour)) {
		t.Fatalf("%v %v", oldest, err)
	}
}
