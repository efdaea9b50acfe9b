package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// BenchmarkForget100k purges a cache of 100,000 items in 10,000 batches,
// every one of them untouched for longer than the period, each item with a
// settled action, its attempt and its audit line: transactions of
// forgetChunk batches, each a fixed set of statements (no statement per
// row).
func BenchmarkForget100k(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		db := MustOpenDB(b)
		for p := 0; p < 100; p++ {
			page := make([]policy.Batch, 0, 100)
			for j := 0; j < 100; j++ {
				n := p*100 + j
				id := fmt.Sprintf("b%05d", n)
				bt := batchOf(id, t0)
				for k := 0; k < 10; k++ {
					bt.Items = append(bt.Items, scored(fmt.Sprintf("%s_%02d", id, k), id, k, t0))
				}
				page = append(page, bt)
			}
			if _, err := db.Sync.ApplyPage(ctx, page); err != nil {
				b.Fatal(err)
			}
		}
		for _, q := range []string{
			`INSERT INTO actions(item_id, kind, idempotency_key, state, reviewer, created_at, updated_at)
				SELECT id, 'resubmit', 'k-' || id, 'done', 'ana', 0, 0 FROM items`,
			`INSERT INTO audit(at, reviewer, item_id, action_id, event) SELECT 0, 'ana', item_id, id, 'resubmit requested' FROM actions`,
			`INSERT INTO attempts(action_id, item_id, operation, number, started_at, deadline, spent_before_ms, connect_timeout_ms,
				request_timeout_ms, elapsed_ms, class) SELECT id, item_id, 'resubmit', 1, 0, 0, 0, 0, 0, 0, 'answered' FROM actions`,
			`UPDATE batches SET touched_at = 0`,
		} {
			if err := db.Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		got, err := db.Retention.Forget(ctx, time.Now(), policy.DefaultRetention, "ana")
		if err != nil || len(got) != 10_000 {
			b.Fatal(len(got), err)
		}
		b.StopTimer()
		if n := count(b, db, `SELECT COUNT(*) FROM items`); n != 0 {
			b.Fatalf("%d items left", n)
		}
		db.Close()
		b.StartTimer()
	}
}
