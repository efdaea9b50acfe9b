package store_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// retentionCase is one batch of the grid: one item in a status, with an
// action, a note, a last touch by the cache and one by an audit line.
type retentionCase struct {
	status    policy.Status
	code      policy.Code
	action    policy.ActionState // "": none
	note      policy.ActionState // "": none
	touched   time.Time
	auditedAt time.Time // zero: no audit line
}

// TestForgettableFollowsPolicy fills a real cache with every combination
// of status, action state, note state and age of the last touch (by a sync
// and by an audit line), and holds the store's SQL to policy.MayForget;
// then Forget removes exactly those batches with everything of their
// items, leaves one audit line each, and touches nothing else.
func TestForgettableFollowsPolicy(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	keep := policy.DefaultRetention
	old, fresh := now.Add(-keep-time.Hour), now.Add(-keep+time.Hour)
	type sc struct {
		st   policy.Status
		code policy.Code
	}
	statuses := []sc{{policy.StatusScored, ""}, {policy.StatusPending, ""}, {policy.StatusAwaitingFile, ""},
		{policy.StatusInvalid, policy.CodeInvalidResponse}, {policy.StatusError, policy.CodeClassifierTimeout},
		{policy.StatusError, policy.CodeDecodeFailed}}
	actionStates := append([]policy.ActionState{""}, policy.ActionQueued, policy.ActionSending, policy.ActionUnknown,
		policy.ActionDone, policy.ActionFailed, policy.ActionCancelled)
	noteStates := []policy.ActionState{"", policy.ActionQueued, policy.ActionSending, policy.ActionUnknown, policy.ActionDone, policy.ActionFailed}
	var cases []retentionCase
	for _, s := range statuses {
		for _, a := range actionStates {
			for _, n := range noteStates {
				for _, touched := range []time.Time{old, fresh} {
					for _, audited := range []time.Time{{}, old, fresh} {
						cases = append(cases, retentionCase{s.st, s.code, a, n, touched, audited})
					}
				}
			}
		}
	}
	// One bulk run holds every action, so that its links go too.
	must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO bulk_runs(id, kind, reviewer, confirmed, created_at) VALUES (1, 'resubmit', 'ana', %d, 0)`, len(cases))))
	want := map[string]bool{}
	for i, c := range cases {
		b, it := fmt.Sprintf("b%04d", i), fmt.Sprintf("i%04d", i)
		insertCase(t, db, b, it, i, c)
		rb := policy.RetainedBatch{ID: b, TouchedAt: c.touched, Items: []policy.RetainedItem{{
			Item: policy.Item{ID: it, BatchID: b, Status: c.status, ErrorCode: c.code}}}}
		if c.auditedAt.After(rb.TouchedAt) {
			rb.TouchedAt = c.auditedAt
		}
		if c.action.Open() {
			rb.Items[0].OpenAction = c.action
		}
		if c.note.Open() {
			rb.Items[0].OpenNote = c.note
		}
		if policy.MayForget(rb, now, keep) {
			want[b] = true
		}
	}
	// A batch of two items, one that could go and one that holds it: a
	// scored item beside one with an unknown action.
	insertCase(t, db, "bmix", "imix1", len(cases), retentionCase{status: policy.StatusScored, touched: old})
	must(t, db.Exec(ctx, `INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes, status, risk_score, recommendation, updated_at)
		VALUES ('imix2', 'bmix', 'selfie', 'a.jpg', 'image/jpeg', 1, 'scored', 10, 'review', 0)`))
	must(t, db.Exec(ctx, `INSERT INTO actions(item_id, kind, idempotency_key, state, reviewer, created_at, updated_at)
		VALUES ('imix2', 'resubmit', 'key-mix', 'unknown', 'ana', 0, 0)`))
	if len(want) == 0 || len(want) == len(cases) {
		t.Fatalf("the grid is degenerate: %d of %d forgettable", len(want), len(cases))
	}
	dry, err := db.Retention.Forgettable(ctx, now, keep)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(dry); !sameSet(got, want) {
		t.Fatalf("the SQL and policy.MayForget disagree:\n%s", diffSets(got, want, cases))
	}
	if d, _ := db.Retention.Forgettable(ctx, now, 0); len(d) != 0 {
		t.Fatalf("no period forgets %d batches", len(d))
	}
	auditBefore := count(t, db, `SELECT COUNT(*) FROM audit`)
	var removedIDs []string
	for b := range want {
		removedIDs = append(removedIDs, "'"+b+"'")
	}
	removedLines := count(t, db, `SELECT COUNT(*) FROM audit u JOIN items i ON i.id = u.item_id WHERE i.batch_id IN (`+strings.Join(removedIDs, ",")+`)`)
	removed, err := db.Retention.Forget(ctx, now, keep, "ana")
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(removed); !sameSet(got, want) {
		t.Fatalf("Forget removed another set:\n%s", diffSets(got, want, cases))
	}
	for _, f := range removed {
		if f.Items != 1 || f.CustomerRef != "CUST-"+f.ID {
			t.Fatalf("removed batch reported as %+v", f)
		}
	}
	left := count(t, db, `SELECT COUNT(*) FROM batches`)
	if left != len(cases)+1-len(want) {
		t.Fatalf("%d batches left, want %d", left, len(cases)+1-len(want))
	}
	// Nothing of a removed item is left: not its row, action, file,
	// attempt, note, snooze, file version, run link or audit line.
	for _, q := range []string{
		`SELECT COUNT(*) FROM items WHERE batch_id NOT IN (SELECT id FROM batches)`,
		`SELECT COUNT(*) FROM actions WHERE item_id NOT IN (SELECT id FROM items)`,
		`SELECT COUNT(*) FROM action_files WHERE action_id NOT IN (SELECT id FROM actions)`,
		`SELECT COUNT(*) FROM attempts WHERE item_id NOT IN (SELECT id FROM items)`,
		`SELECT COUNT(*) FROM notes WHERE item_id NOT IN (SELECT id FROM items)`,
		`SELECT COUNT(*) FROM snoozes WHERE item_id NOT IN (SELECT id FROM items)`,
		`SELECT COUNT(*) FROM file_versions WHERE item_id NOT IN (SELECT id FROM items)`,
		`SELECT COUNT(*) FROM bulk_run_actions WHERE action_id NOT IN (SELECT id FROM actions)`,
		`SELECT COUNT(*) FROM audit WHERE item_id IS NOT NULL AND item_id NOT IN (SELECT id FROM items)`,
		`SELECT COUNT(*) FROM retention_purge`,
	} {
		if n := count(t, db, q); n != 0 {
			t.Errorf("%s: %d", q, n)
		}
	}
	// What stays keeps all of its own.
	if n := count(t, db, `SELECT COUNT(*) FROM items`); n != left+1 { // bmix has two items
		t.Errorf("%d items left, want %d", n, left+1)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM snoozes`); n != left { // one item each
		t.Errorf("%d snoozes left, want %d", n, left)
	}
	// One audit line per removed batch, in words, by who ran it.
	lines := count(t, db, `SELECT COUNT(*) FROM audit WHERE event = '`+store.RetentionEvent+`' AND reviewer = 'ana' AND item_id IS NULL`)
	if lines != len(want) {
		t.Fatalf("%d audit lines for %d removed batches", lines, len(want))
	}
	var detail string
	if err := db.QueryRow(ctx, `SELECT detail FROM audit WHERE event = '`+store.RetentionEvent+`' AND detail LIKE 'batch `+removed[0].ID+`:%'`, &detail); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(detail, "1 items, untouched since") || strings.Contains(detail, "CUST-") {
		t.Fatalf("audit line %q", detail)
	}
	if after := count(t, db, `SELECT COUNT(*) FROM audit`); after != auditBefore-removedLines+len(want) {
		t.Fatalf("audit lines %d before, %d after: want %d less (the removed items' history) and %d more", auditBefore, after, removedLines, len(want))
	}
	// Again: nothing more to forget.
	if again, err := db.Retention.Forget(ctx, now, keep, "ana"); err != nil || len(again) != 0 {
		t.Fatalf("a second purge: %v, %v", again, err)
	}
	// The audit stays append-only outside a purge.
	if err := db.Exec(ctx, `DELETE FROM audit WHERE item_id IS NOT NULL`); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("deleting an item's audit line outside a purge: %v", err)
	}
	if err := db.Exec(ctx, `DELETE FROM audit WHERE item_id IS NULL`); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("deleting a retention line: %v", err)
	}
}

func insertCase(t *testing.T, db *store.DB, b, it string, i int, c retentionCase) {
	t.Helper()
	ctx := context.Background()
	must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO batches(id, customer_ref, created_at, updated_at, touched_at) VALUES ('%s', 'CUST-%s', 0, 0, %d)`,
		b, b, c.touched.UnixMilli())))
	score, rec, code := "NULL", "NULL", "NULL"
	if c.status == policy.StatusScored {
		score, rec = "40", "'review'"
	}
	if c.code != "" {
		code = "'" + string(c.code) + "'"
	}
	must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes, status, risk_score, recommendation, error_code, updated_at)
		VALUES ('%s', '%s', 'selfie', 'a.jpg', 'image/jpeg', 1, '%s', %s, %s, %s, 0)`, it, b, c.status, score, rec, code)))
	must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO snoozes(item_id, until, reason, reviewer, created_at) VALUES ('%s', 0, 'later', 'ana', 0)`, it)))
	must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO file_versions(item_id, version, file_name, media_type, size_bytes, uploaded_at)
		VALUES ('%s', 1, 'a.jpg', 'image/jpeg', 1, 0)`, it)))
	must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO attempts(item_id, operation, number, started_at, deadline, spent_before_ms, connect_timeout_ms,
		request_timeout_ms, elapsed_ms, class) VALUES ('%s', 'get_item', 1, 0, 0, 0, 0, 0, 0, 'answered')`, it)))
	if c.action != "" {
		must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO actions(id, item_id, kind, idempotency_key, state, reviewer, created_at, updated_at)
			VALUES (%d, '%s', 'replacement', 'key-a-%d', '%s', 'ana', 0, 0)`, i+1, it, i, c.action)))
		must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO action_files(action_id, data, sha256, size_bytes, purged_at) VALUES (%d, NULL, 'x', 1, 1)`, i+1)))
		must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO bulk_run_actions(action_id, run_id) VALUES (%d, 1)`, i+1)))
		must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO attempts(action_id, operation, number, started_at, deadline, spent_before_ms, connect_timeout_ms,
			request_timeout_ms, elapsed_ms, class) VALUES (%d, 'resubmit', 1, 0, 0, 0, 0, 0, 0, 'answered')`, i+1)))
	}
	if c.note != "" {
		remote := "NULL"
		if c.note == policy.ActionDone {
			remote = fmt.Sprintf("'rn-%d'", i)
		}
		must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO notes(item_id, remote_id, idempotency_key, author, text, state, created_at, updated_at)
			VALUES ('%s', %s, 'key-n-%d', 'ana', 'a note', '%s', 0, 0)`, it, remote, i, c.note)))
	}
	if !c.auditedAt.IsZero() {
		must(t, db.Exec(ctx, fmt.Sprintf(`INSERT INTO audit(at, reviewer, item_id, event) VALUES (%d, 'ana', '%s', 'snoozed')`, c.auditedAt.UnixMilli(), it)))
	}
}

// TestSyncTouchesABatch: a batch the cache receives, or receives a change
// of, counts as touched now by the cache's clock, whatever the service's
// updated_at says; an unchanged page touches nothing.
func TestSyncTouchesABatch(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	longAgo := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // the service's updated_at
	keep := time.Hour
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", longAgo, scored("i1", "b1", 10, longAgo))}); err != nil {
		t.Fatal(err)
	}
	if f, err := db.Retention.Forgettable(ctx, time.Now(), keep); err != nil || len(f) != 0 {
		t.Fatalf("a batch synced just now (updated long ago at the service) is forgettable: %v, %v", f, err)
	}
	later := time.Now().Add(2 * keep) // the cache's clock, two periods on
	if f, err := db.Retention.Forgettable(ctx, later, keep); err != nil || len(f) != 1 {
		t.Fatalf("untouched for two periods: %v, %v", f, err)
	}
	// An unchanged page is not a touch.
	must(t, db.Exec(ctx, `UPDATE batches SET touched_at = 0`))
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", longAgo, scored("i1", "b1", 10, longAgo))}); err != nil {
		t.Fatal(err)
	}
	if f, _ := db.Retention.Forgettable(ctx, time.Now(), keep); len(f) != 1 {
		t.Fatalf("an unchanged page touched the batch: %v", f)
	}
	// A change is.
	next := longAgo.Add(time.Minute)
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", next, scored("i1", "b1", 11, next))}); err != nil {
		t.Fatal(err)
	}
	if f, _ := db.Retention.Forgettable(ctx, time.Now(), keep); len(f) != 0 {
		t.Fatalf("a changed batch was not touched: %v", f)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func count(t testing.TB, db *store.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), q, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func ids(fs []store.ForgottenBatch) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		out[f.ID] = true
	}
	return out
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func diffSets(got, want map[string]bool, cases []retentionCase) string {
	var lines []string
	for i, c := range cases {
		b := fmt.Sprintf("b%04d", i)
		if got[b] != want[b] {
			lines = append(lines, fmt.Sprintf("%s %+v: SQL %v, policy %v", b, c, got[b], want[b]))
		}
	}
	sort.Strings(lines)
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("... and %d more", len(lines)-20))
	}
	return strings.Join(lines, "\n")
}
