package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

func TestItemsByIDKeepsTheSelectionsOrder(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	var items []policy.Item
	for i := range 700 {
		items = append(items, failed(fmt.Sprintf("i%03d", i), "b1", policy.CodeInternal, t0))
	}
	db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, items...)})
	ids := []string{"i699", "nope", "i000", "i699"}
	for i := 100; i < 650; i++ {
		ids = append(ids, fmt.Sprintf("i%03d", i))
	}
	rows, err := db.Items.ItemsByID(ctx, ids)
	if err != nil || len(rows) != 552 || rows[0].ID != "i699" || rows[1].ID != "i000" || rows[551].ID != "i649" {
		t.Fatalf("%d %v", len(rows), err)
	}
}
