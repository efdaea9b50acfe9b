package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// An invalid item keeps the text the service sent for it; a later valid
// answer replaces it, text and all. Listings do not carry it.
func TestInvalidItemKeepsItsRawText(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	raw := `{"id":"i1","batch_id":"b1","status":"scored","risk_score":1e400}`
	bad := policy.MarkInvalid(policy.Item{ID: "i1", BatchID: "b1", UpdatedAt: t0}, "the item could not be read")
	bad.Raw = raw
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, bad)}); err != nil {
		t.Fatal(err)
	}
	r, err := db.Items.Item(ctx, "i1")
	if err != nil || r.Status != policy.StatusInvalid || r.Raw != raw || r.Checked() {
		t.Fatalf("invalid item: %+v %v", r, err)
	}
	rows, err := db.Items.Items(ctx, store.ItemFilter{})
	if err != nil || len(rows) != 1 || rows[0].Raw != "" {
		t.Fatalf("listing: %+v %v", rows, err)
	}
	t1 := t0.Add(time.Minute)
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t1, scored("i1", "b1", 10, t1))}); err != nil {
		t.Fatal(err)
	}
	if r, err := db.Items.Item(ctx, "i1"); err != nil || r.Raw != "" || !r.Checked() {
		t.Fatalf("the valid answer after it: %+v %v", r, err)
	}
}
