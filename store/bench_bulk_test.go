package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// errorCache fills a cache with n items in error (a code a re-run may help),
// in batches of 10, and returns the actions that re-submit each of them.
func errorCache(tb testing.TB, n int) (*store.DB, []store.Action) {
	tb.Helper()
	db := MustOpenDB(tb)
	return db, fillErrors(tb, db, n)
}

// fillErrors writes n items in error into db (see errorCache).
func fillErrors(tb testing.TB, db *store.DB, n int) []store.Action {
	tb.Helper()
	ctx := context.Background()
	acts := make([]store.Action, 0, n)
	var page []policy.Batch
	for b := 0; b*10 < n; b++ {
		id := fmt.Sprintf("b%06d", b)
		at := t0.Add(time.Duration(b) * time.Second)
		bt := batchOf(id, at)
		for k := 0; k < 10 && b*10+k < n; k++ {
			iid := fmt.Sprintf("%s_%d", id, k)
			bt.Items = append(bt.Items, failed(iid, id, policy.CodeClassifierTimeout, at))
			acts = append(acts, store.Action{ItemID: iid, Kind: policy.ActionResubmit, Key: "key-" + iid})
		}
		if page = append(page, bt); len(page) == 100 {
			if _, err := db.Sync.ApplyPage(ctx, page); err != nil {
				tb.Fatal(err)
			}
			page = nil
		}
	}
	if _, err := db.Sync.ApplyPage(ctx, page); err != nil {
		tb.Fatal(err)
	}
	return acts
}

// BenchmarkConfirmRun confirms a bulk run of 5,000, 20,000 and 50,000
// re-submissions: the time per action must not grow with the count (it did
// while a trigger counted the run's actions at every insert).
func BenchmarkConfirmRun(b *testing.B) {
	for _, n := range []int{5000, 20000, 50000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			// Cancellable, as a command's is (Ctrl-C).
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db, acts := errorCache(b, n)
				b.StartTimer()
				start := time.Now()
				_, created, refused, err := db.Runs.CreateRun(ctx, policy.ActionResubmit, "ana", acts, policy.CanResubmit)
				elapsed += time.Since(start)
				if err != nil || len(created) != n || len(refused) != 0 {
					b.Fatalf("%d created, %d refused: %v", len(created), len(refused), err)
				}
				b.StopTimer()
				db.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/elapsed.Seconds(), "actions/s")
		})
	}
}
