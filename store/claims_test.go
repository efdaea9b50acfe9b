package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// The items list keeps items by who holds them now: free (nobody, or a
// claim that has ended), mine, others'.
func TestItemsByWhoHoldsThem(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	now := t0.Add(time.Hour)
	db.SetClock(func() time.Time { return now })
	claimed := func(id, who string, until time.Time) policy.Item {
		it := failed(id, "b1", policy.CodeClassifierTimeout, t0)
		if who != "" {
			it.Claim = &policy.Claim{Reviewer: who, ExpiresAt: until}
		}
		return it
	}
	items := []policy.Item{
		claimed("free", "", time.Time{}),
		claimed("ended", "ben", now.Add(-time.Minute)),
		claimed("mine", "ana", now.Add(10*time.Minute)),
		claimed("bens", "ben", now.Add(10*time.Minute)),
	}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, items...)}); err != nil {
		t.Fatal(err)
	}
	for held, want := range map[store.HeldFilter]string{
		"": "bens ended free mine", store.HeldFree: "ended free", store.HeldMine: "mine", store.HeldOthers: "bens",
	} {
		rows, err := db.Items.Items(ctx, store.ItemFilter{Held: held, Me: "ana", SortBy: "id"})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, r := range rows {
			got += " " + r.ID
		}
		if got != " "+want {
			t.Errorf("%q: %q, want %q", held, got, want)
		}
		if n, err := db.Items.CountItems(ctx, store.ItemFilter{Held: held, Me: "ana"}); err != nil || n != len(rows) {
			t.Errorf("%q: counted %d (%v), listed %d", held, n, err, len(rows))
		}
	}
}
