package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// bigCache fills a cache with 10,000 batches of 10 items: 100,000 items.
func bigCache(b *testing.B) *store.DB {
	b.Helper()
	db := MustOpenDB(b)
	codes := policy.ItemCodes()
	ctx := context.Background()
	for p := 0; p < 100; p++ {
		page := make([]policy.Batch, 0, 100)
		for j := 0; j < 100; j++ {
			n := p*100 + j
			at := t0.Add(time.Duration(n) * time.Second)
			id := fmt.Sprintf("b%05d", n)
			bt := batchOf(id, at)
			for k := 0; k < 10; k++ {
				iid := fmt.Sprintf("%s_%02d", id, k)
				if k%3 == 0 {
					bt.Items = append(bt.Items, failed(iid, id, codes[(n+k)%len(codes)], at))
				} else {
					bt.Items = append(bt.Items, scored(iid, id, (n+k)%101, at))
				}
			}
			page = append(page, bt)
		}
		if _, err := db.Sync.ApplyPage(ctx, page); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

func BenchmarkCache100k(b *testing.B) {
	db := bigCache(b)
	ctx := context.Background()
	b.Run("BatchesNewest200", func(b *testing.B) {
		for b.Loop() {
			if bs, err := db.Items.Batches(ctx, policy.DefaultBands(), "", 200); err != nil || len(bs) != 200 {
				b.Fatal(len(bs), err)
			}
		}
	})
	b.Run("BatchesSearch", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Items.Batches(ctx, policy.DefaultBands(), "b0999", 200); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ItemsOfBatch", func(b *testing.B) {
		for b.Loop() {
			if rows, err := db.Items.Items(ctx, store.ItemFilter{BatchID: "b05000"}); err != nil || len(rows) != 10 {
				b.Fatal(len(rows), err)
			}
		}
	})
	b.Run("NeedsActionFirstPage", func(b *testing.B) {
		for b.Loop() {
			if rows, err := db.Items.Items(ctx, store.ItemFilter{NeedsAction: true, Limit: 500}); err != nil || len(rows) != 500 {
				b.Fatal(len(rows), err)
			}
		}
	})
	b.Run("ItemByID", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Items.Item(ctx, "b07777_03"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ResyncUnchangedPage", func(b *testing.B) {
		page := []policy.Batch{batchOf("b09999", t0.Add(9999*time.Second))}
		for b.Loop() {
			if n, err := db.Sync.ApplyPage(ctx, page); err != nil || n.Batches != 0 {
				b.Fatal(n, err)
			}
		}
	})
}

// BenchmarkApplyPage writes one page of 100 new batches (1,000 items), as
// a first sync does: one transaction, prepared statements.
func BenchmarkApplyPage(b *testing.B) {
	db := MustOpenDB(b)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		page := make([]policy.Batch, 0, 100)
		for j := 0; j < 100; j++ {
			id := fmt.Sprintf("p%07d", n)
			n++
			at := t0.Add(time.Duration(n) * time.Second)
			bt := batchOf(id, at)
			for k := 0; k < 10; k++ {
				bt.Items = append(bt.Items, scored(fmt.Sprintf("%s_%02d", id, k), id, k, at))
			}
			page = append(page, bt)
		}
		if got, err := db.Sync.ApplyPage(ctx, page); err != nil || got.Items != 1000 {
			b.Fatal(got, err)
		}
	}
}
