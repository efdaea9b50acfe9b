package store_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/store"
)

// rawDB opens a migrated cache and a second, plain connection to its file,
// so that a test can try what the store's own code never would: the schema
// itself must refuse it.
func rawDB(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cache.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	raw, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	mustExec(t, raw, `INSERT INTO batches (id, customer_ref, created_at, updated_at) VALUES ('bat_1', 'CUST-1', 0, 0)`)
	for _, id := range []string{"itm_1", "itm_2"} {
		mustExec(t, raw, `INSERT INTO items (id, batch_id, kind, file_name, media_type, size_bytes, status, error_code, updated_at)
			VALUES (?, 'bat_1', 'selfie', 'a.jpg', 'image/jpeg', 1, 'error', 'CLASSIFIER_TIMEOUT', 0)`, id)
	}
	return raw
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// mustRefuse runs a statement the schema must refuse with a constraint
// naming want.
func mustRefuse(t *testing.T, db *sql.DB, want, q string, args ...any) {
	t.Helper()
	_, err := db.Exec(q, args...)
	if err == nil {
		t.Fatalf("the cache accepted %s %v", q, args)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("%s %v: refused with %q, want a %s constraint", q, args, err, want)
	}
}

const insertAction = `INSERT INTO actions (item_id, kind, idempotency_key, state, reviewer, created_at, updated_at)
	VALUES (?, 'resubmit', ?, ?, 'ana', 0, 0)`

// Every send of an action reuses its key, and no two actions may share one:
// two intents under one key would be one effect at the service for two
// actions in the cache.
func TestTheIdempotencyKeyIsUnique(t *testing.T) {
	db := rawDB(t)
	mustExec(t, db, insertAction, "itm_1", "key-1", "done")
	mustRefuse(t, db, "UNIQUE constraint failed: actions.idempotency_key", insertAction, "itm_2", "key-1", "done")
	mustRefuse(t, db, "UNIQUE constraint failed: actions.idempotency_key", insertAction, "itm_1", "key-1", "failed")
	mustExec(t, db, insertAction, "itm_2", "key-2", "done")
}

func TestARiskScoreLiesIn0To100(t *testing.T) {
	db := rawDB(t)
	const q = `INSERT INTO items (id, batch_id, kind, file_name, media_type, size_bytes, status, risk_score, recommendation, updated_at)
		VALUES (?, 'bat_1', 'selfie', 'a.jpg', 'image/jpeg', 1, 'scored', ?, 'review', 0)`
	for _, score := range []int{-1, 101, 140} {
		mustRefuse(t, db, "CHECK constraint failed", q, "itm_bad", score)
	}
	for _, score := range []int{0, 100} {
		mustExec(t, db, q, fmt.Sprintf("itm_ok_%d", score), score)
	}
	mustRefuse(t, db, "CHECK constraint failed", `UPDATE items SET risk_score = 101 WHERE id = 'itm_ok_100'`)
}

func TestOneOpenActionPerItem(t *testing.T) {
	db := rawDB(t)
	mustExec(t, db, insertAction, "itm_1", "key-1", "unknown")
	for i, st := range []string{"queued", "sending", "unknown"} {
		mustRefuse(t, db, "UNIQUE constraint failed: actions.item_id", insertAction, "itm_1", fmt.Sprintf("key-open-%d", i), st)
	}
	mustExec(t, db, insertAction, "itm_1", "key-old", "done") // closed ones stay beside it
	mustExec(t, db, insertAction, "itm_2", "key-2", "queued")
}

// A bulk run keeps how many actions it holds (a constant-time check in
// place of a count at every insert): the limit holds for inserts, a delete
// frees a place, and an action cannot move to another run.
func TestABulkRunHoldsNoMoreThanConfirmed(t *testing.T) {
	db := rawDB(t)
	mustExec(t, db, `INSERT INTO bulk_runs (id, kind, reviewer, confirmed, created_at) VALUES (1, 'resubmit', 'ana', 1, 0)`)
	mustExec(t, db, `INSERT INTO bulk_runs (id, kind, reviewer, confirmed, created_at) VALUES (2, 'resubmit', 'ana', 5, 0)`)
	mustExec(t, db, insertAction, "itm_1", "key-1", "done")
	mustExec(t, db, insertAction, "itm_2", "key-2", "done")
	mustExec(t, db, `INSERT INTO bulk_run_actions (action_id, run_id) SELECT id, 1 FROM actions WHERE idempotency_key = 'key-1'`)
	mustRefuse(t, db, "no more actions than the reviewer confirmed",
		`INSERT INTO bulk_run_actions (action_id, run_id) SELECT id, 1 FROM actions WHERE idempotency_key = 'key-2'`)
	mustExec(t, db, `INSERT INTO bulk_run_actions (action_id, run_id) SELECT id, 2 FROM actions WHERE idempotency_key = 'key-2'`)
	mustRefuse(t, db, "stays in the bulk run", `UPDATE bulk_run_actions SET run_id = 1 WHERE run_id = 2`)
	mustExec(t, db, `DELETE FROM bulk_run_actions WHERE run_id = 1`)
	var held1, held2 int
	if err := db.QueryRow(`SELECT (SELECT held FROM bulk_runs WHERE id = 1), (SELECT held FROM bulk_runs WHERE id = 2)`).Scan(&held1, &held2); err != nil {
		t.Fatal(err)
	}
	if held1 != 0 || held2 != 1 {
		t.Fatalf("held %d and %d, want 0 and 1", held1, held2)
	}
}
