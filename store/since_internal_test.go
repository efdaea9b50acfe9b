package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// Migration 00008 moves when an item entered its status from the
// item_status_since table (kept by triggers) into items.since, value for
// value, and the cache then keeps it by the same rule.
func TestMigration8KeepsWhenEachItemEnteredItsStatus(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	sdb, err := sql.Open(driverName, "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrator(sdb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 7); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO batches(id, customer_ref, created_at, updated_at) VALUES ('b1', 'CUST-1', 1000, 5000)`,
		// Seen first at 2000 in error; a later answer (4000) in the same status.
		`INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes, status, error_code, attempt, updated_at)
		 VALUES ('i1', 'b1', 'id_document', 'a.jpg', 'image/jpeg', 1, 'error', 'INTERNAL_ERROR', 1, 2000)`,
		`UPDATE items SET updated_at = 4000, attempt = 2 WHERE id = 'i1'`,
		// The service's status_since.
		`INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes, status, risk_score, recommendation, attempt, updated_at, status_since)
		 VALUES ('i2', 'b1', 'selfie', 'b.jpg', 'image/jpeg', 1, 'scored', 12, 'forward', 1, 5000, 3000)`,
	} {
		if _, err := sdb.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	sdb.Close()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, want := range map[string]int64{"i1": 2000, "i2": 3000} {
		r, err := db.Items.Item(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := ms(r.EnteredStatus); got != want {
			t.Fatalf("%s entered its status at %d after the migration, want %d", id, got, want)
		}
	}
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name IN
		('item_status_since', 'items_since_insert', 'items_since_update', 'items_status_since')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d of the old table, triggers and index left (%v)", n, err)
	}
}
