package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/store"
)

// BenchmarkTriage100k measures the reads of triage at speed on a cache of
// 100,000 items: a selection of 500 by id (a bulk plan's read), the overdue
// view oldest first, and the oldest waiting item of 200 batches.
func BenchmarkTriage100k(b *testing.B) {
	db := bigCache(b)
	db.SetClock(func() time.Time { return t0.Add(30 * 24 * time.Hour) })
	ctx := context.Background()
	ids := make([]string, 0, 500)
	for n := 0; len(ids) < 500; n += 7 {
		ids = append(ids, fmt.Sprintf("b%05d_%02d", n, (n%4)*3)) // k%3 == 0: items in error
	}
	b.Run("ItemsByID500", func(b *testing.B) {
		for b.Loop() {
			if rows, err := db.Items.ItemsByID(ctx, ids); err != nil || len(rows) != 500 {
				b.Fatal(len(rows), err)
			}
		}
	})
	b.Run("OverdueOldestFirstPage", func(b *testing.B) {
		f := store.ItemFilter{TriageFilter: store.TriageFilter{OlderThan: 5 * 24 * time.Hour}, SortBy: "since", Limit: 200}
		for b.Loop() {
			if rows, err := db.Items.Items(ctx, f); err != nil || len(rows) != 200 {
				b.Fatal(len(rows), err)
			}
		}
	})
	batches := make([]string, 200)
	for i := range batches {
		batches[i] = fmt.Sprintf("b%05d", 9999-i)
	}
	b.Run("OldestWaiting200Batches", func(b *testing.B) {
		for b.Loop() {
			if m, err := db.Triage.OldestWaiting(ctx, batches); err != nil || len(m) != 200 {
				b.Fatal(len(m), err)
			}
		}
	})
}
