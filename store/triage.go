package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/trustscreen/reviewer/policy"
)

// Triage at speed: when an item entered its status, snoozes,
// bulk runs and saved views.

// Triage is what the cache adds to an item for triage.
type Triage struct {
	// EnteredStatus is when the item entered its current status (zero:
	// unknown): the service's status_since where it gave one, else the
	// updated_at of the answer in which the cache first saw the status.
	EnteredStatus time.Time
	SnoozedUntil  time.Time // zero: not snoozed (a past date is still shown here until woken)
	SnoozeReason  string
}

// Snoozed reports whether the item is hidden from "needs my action" at now.
func (t Triage) Snoozed(now time.Time) bool { return now.Before(t.SnoozedUntil) }

// TriageFilter narrows a listing by age and snooze.
type TriageFilter struct {
	Snoozed   bool          // only items snoozed now
	OlderThan time.Duration // only items waiting (not scored) in their status at least this long
	// IDs, when not nil, keeps only these items (the new items a sync
	// brought that need the reviewer); an empty list keeps none.
	IDs []string
}

const triageColumns = ` i.since, sz.until, sz.reason`

const triageJoin = `
	LEFT JOIN snoozes sz ON sz.item_id = i.id`

type triageScan struct {
	since, until sql.NullInt64
	reason       sql.NullString
}

func (t *triageScan) dest() []any { return []any{&t.since, &t.until, &t.reason} }

func (t *triageScan) triage() Triage {
	return Triage{EnteredStatus: fromMS(t.since.Int64), SnoozedUntil: fromMS(t.until.Int64), SnoozeReason: t.reason.String}
}

// where adds the filter's conditions. "Needs my action" leaves out what is
// snoozed now; a snooze whose date has come is no snooze, with no process
// needed to end it.
func (f TriageFilter) where(where []string, args []any, now time.Time, needsAction bool) ([]string, []any) {
	switch {
	case f.Snoozed:
		where, args = append(where, "sz.until > ?"), append(args, ms(now))
	case needsAction:
		where, args = append(where, "(sz.until IS NULL OR sz.until <= ?)"), append(args, ms(now))
	}
	if f.OlderThan > 0 {
		where = append(where, "i.status <> 'scored' AND i.since <= ?")
		args = append(args, ms(now.Add(-f.OlderThan)))
	}
	switch {
	case f.IDs == nil:
	case len(f.IDs) == 0:
		where = append(where, "0")
	default:
		where = append(where, "i.id IN (?"+strings.Repeat(",?", len(f.IDs)-1)+")")
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	return where, args
}

// ItemsByID returns the items of a selection that the cache holds, in the
// order given; ids it does not hold are left out.
func (db *DB) ItemsByID(ctx context.Context, ids []string) ([]ItemRow, error) {
	byID := make(map[string]ItemRow, len(ids))
	const chunk = 500
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		q := "SELECT " + itemColumns + itemFrom + " WHERE i.id IN (?" + strings.Repeat(",?", len(part)-1) + ")"
		rows, err := db.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			r, err := scanItem(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			byID[r.ID] = r
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	out := make([]ItemRow, 0, len(byID))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
			delete(byID, id) // a repeated id counts once
		}
	}
	return out, nil
}

// OldestWaiting returns, per batch, when its longest-waiting item (not
// scored, not snoozed now) entered its status. Batches with none are absent.
func (db *DB) OldestWaiting(ctx context.Context, batchIDs []string) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	if len(batchIDs) == 0 {
		return out, nil
	}
	args := []any{ms(db.now())}
	for _, id := range batchIDs {
		args = append(args, id)
	}
	rows, err := db.db.QueryContext(ctx, `SELECT i.batch_id, MIN(i.since) FROM items i
		LEFT JOIN snoozes sz ON sz.item_id = i.id AND sz.until > ?
		WHERE i.status <> 'scored' AND sz.item_id IS NULL AND i.batch_id IN (?`+strings.Repeat(",?", len(batchIDs)-1)+`)
		GROUP BY i.batch_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var since int64
		if err := rows.Scan(&id, &since); err != nil {
			return nil, err
		}
		out[id] = fromMS(since)
	}
	return out, rows.Err()
}

// --- snooze -----------------------------------------------------------------

// Snooze hides an item from "needs my action" until a time, with a reason;
// it comes back by itself when the time comes. A new snooze replaces the
// item's old one. Both are in the audit log.
func (db *DB) Snooze(ctx context.Context, itemID string, until time.Time, reason, reviewer string) error {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return policy.Errorf(policy.CodeInvalidInput, "a snooze needs a reason")
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		if !until.After(now) {
			return policy.Errorf(policy.CodeInvalidInput, "snooze until %s: the date has passed", until.Local().Format("2006-01-02 15:04"))
		}
		if _, err := getItem(ctx, tx, itemID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO snoozes(item_id, until, reason, reviewer, created_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT(item_id) DO UPDATE SET until = excluded.until, reason = excluded.reason, reviewer = excluded.reviewer,
			created_at = excluded.created_at`, itemID, ms(until), reason, reviewer, ms(now)); err != nil {
			return err
		}
		return audit(ctx, tx, now, reviewer, itemID, 0, "snoozed until "+until.UTC().Format(time.RFC3339), reason)
	})
}

// Wake ends an item's snooze now (the reviewer's choice).
func (db *DB) Wake(ctx context.Context, itemID, reviewer string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM snoozes WHERE item_id = ?`, itemID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return policy.Errorf(policy.CodeConflict, "item %s is not snoozed", itemID)
		}
		return audit(ctx, tx, db.now(), reviewer, itemID, 0, "snooze ended by the reviewer", "")
	})
}

// WakeDue removes the snoozes whose date has come and writes each in the
// audit log; it returns the items that came back. Listing does not need
// it (a past date is no snooze); it keeps the table and the audit tidy.
func (db *DB) WakeDue(ctx context.Context) ([]string, error) {
	var woken []string
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		rows, err := tx.QueryContext(ctx, `DELETE FROM snoozes WHERE until <= ? RETURNING item_id, reviewer, reason`, ms(now))
		if err != nil {
			return err
		}
		type w struct{ item, reviewer, reason string }
		var ws []w
		for rows.Next() {
			var x w
			if err := rows.Scan(&x.item, &x.reviewer, &x.reason); err != nil {
				rows.Close()
				return err
			}
			ws = append(ws, x)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, x := range ws {
			if err := audit(ctx, tx, now, x.reviewer, x.item, 0, "snooze ended: the date came", x.reason); err != nil {
				return err
			}
			woken = append(woken, x.item)
		}
		return nil
	})
	return woken, err
}

// --- bulk runs --------------------------------------------------------------

// BulkRun is the group of actions one confirmation queued.
type BulkRun struct {
	ID        int64             `json:"id"`
	Kind      policy.ActionKind `json:"kind"`
	Reviewer  string            `json:"reviewer"`
	Confirmed int               `json:"confirmed"`
	CreatedAt time.Time         `json:"created_at"`
}

// Refusal is an item a run left out when it was queued, and why.
type Refusal struct {
	ItemID string
	Err    error
}

// A bulk confirmation writes its actions in chunks, each its own
// transaction, so that another writer (a note, a single action, a sync in
// another process) gets the cache between two of them instead of meeting
// "database is locked" after waiting the whole run. A chunk ends at
// runChunkMax actions or after holding the write lock runChunkHold,
// whichever comes first; then the writer pauses for a random time between
// runYieldMin and runYieldMax. A waiting writer polls the lock at most every
// 100 ms (SQLite's busy handler): a pause at a random point of each cycle
// meets one of its polls within a few cycles.
const (
	runChunkMax  = 5000
	runChunkHold = 100 * time.Millisecond
	runYieldMin  = 10 * time.Millisecond
	runYieldMax  = 50 * time.Millisecond
)

// CreateRun queues a confirmed bulk action: the run, with the count the
// reviewer confirmed, and every action with its own Idempotency-Key, before
// any call. check judges each item inside the transaction that queues it
// (the cache may have changed since the plan); an item it refuses, or whose
// insert the one-open-action index refuses, is left out and reported. The
// run never holds more actions than were confirmed (the database keeps the
// count, in constant time per action).
//
// The actions are written in chunks (runChunkMax, runChunkHold), each one
// transaction, so that other writers get in between. A confirmation that
// stops part-way (ctx ended, the cache failed) returns the run and what it
// queued with the error: those actions are durable, each with its key,
// and go out with the next flush or are withdrawn by CancelRun.
func (db *DB) CreateRun(ctx context.Context, kind policy.ActionKind, reviewer string, actions []Action,
	check func(policy.Situation) error) (BulkRun, []Action, []Refusal, error) {
	run := BulkRun{Kind: kind, Reviewer: reviewer, Confirmed: len(actions)}
	for _, a := range actions {
		if a.Kind != kind {
			return run, nil, nil, fmt.Errorf("action on %s is a %s in a %s run", a.ItemID, a.Kind, kind)
		}
	}
	var created []Action
	var refused []Refusal
	next := 0
	for first := true; first || next < len(actions); first = false {
		if !first {
			if err := yieldWrites(ctx); err != nil {
				return run, created, refused, runStopped(run, len(created), err)
			}
		}
		var chunk runChunk
		err := db.tx(ctx, func(tx *sql.Tx) error {
			now := db.now()
			chunk = runChunk{run: run}
			if first {
				res, err := tx.ExecContext(ctx, `INSERT INTO bulk_runs(kind, reviewer, confirmed, created_at) VALUES (?, ?, ?, ?)`,
					string(kind), reviewer, len(actions), ms(now))
				if err != nil {
					return err
				}
				chunk.run.ID, _ = res.LastInsertId()
				chunk.run.CreatedAt = now
			}
			return chunk.write(ctx, tx, now, actions, next, len(created), len(refused), check)
		})
		if err != nil && ctx.Err() != nil {
			err = ctx.Err() // the transaction was rolled back for it
		}
		if err != nil {
			if first {
				return BulkRun{Kind: kind, Reviewer: reviewer, Confirmed: len(actions)}, nil, nil, err
			}
			return run, created, refused, runStopped(run, len(created), err)
		}
		run = chunk.run
		created, refused = append(created, chunk.created...), append(refused, chunk.refused...)
		next = chunk.end
	}
	return run, created, refused, nil
}

// runStopped is the error of a confirmation that stopped part-way: what it
// queued stays queued, and the reviewer is told how to send or withdraw it.
func runStopped(run BulkRun, queued int, err error) error {
	return fmt.Errorf("bulk run %d stopped after queuing %d of %d actions (each with its key: 'reviewer flush' sends them, 'reviewer cancel-run %d' withdraws them): %w",
		run.ID, queued, run.Confirmed, run.ID, err)
}

// yieldWrites pauses between two chunks of a bulk confirmation (see
// runChunkHold), for a random time so that it does not keep step with a
// waiting writer's polls.
func yieldWrites(ctx context.Context) error {
	d := runYieldMin + rand.N(runYieldMax-runYieldMin)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// runChunk is one transaction of a bulk confirmation: what it queued and
// left out, and where the next one starts. Nothing of it counts until the
// transaction commits.
type runChunk struct {
	run     BulkRun
	created []Action
	refused []Refusal
	end     int
}

// write queues actions[from:] until the chunk is full (runChunkMax actions,
// or runChunkHold of holding the lock), with prepared statements: a
// statement prepared per action was a third of the time. The last chunk
// writes the run's line in the audit log. createdBefore and refusedBefore
// are what earlier chunks did, for that line.
func (c *runChunk) write(ctx context.Context, tx *sql.Tx, now time.Time, actions []Action, from, createdBefore, refusedBefore int,
	check func(policy.Situation) error) error {
	until, err := getState(ctx, tx, keyRateLimited)
	if err != nil {
		return err
	}
	var stmts [5]*sql.Stmt
	defer func() {
		for _, s := range stmts {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i, q := range []string{
		// The item as getItem reads it, with its open action in place of its
		// newest one (the same for a judgement: an open action is always
		// the newest), found by the one-open-action index.
		"SELECT " + itemColumns + ` FROM items i JOIN batches b ON b.id = i.batch_id
			LEFT JOIN actions a INDEXED BY actions_one_open ON a.item_id = i.id AND a.state IN ('queued','sending','unknown')` +
			triageJoin + " WHERE i.id = ?",
		`INSERT INTO actions(item_id, kind, idempotency_key, state, reviewer, message, file_name, created_at, updated_at, revision,
			seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		`INSERT INTO bulk_run_actions(action_id, run_id) VALUES (?, ?)`,
		`INSERT INTO audit(at, reviewer, item_id, action_id, event, detail) VALUES (?, ?, ?, ?, ?, ?)`,
		noteIDsSQL, // what the reviewer saw is kept with each action (team.go: setActionSeen)
	} {
		if stmts[i], err = tx.PrepareContext(ctx, q); err != nil {
			return err
		}
	}
	getItemStmt, insertStmt, linkStmt, auditStmt, notesStmt := stmts[0], stmts[1], stmts[2], stmts[3], stmts[4]
	// The statements run without ctx's cancellation: go-sqlite3 starts a
	// goroutine to watch a cancellable context at every statement (four per
	// action: half the confirmation's time went to waking them). ctx still
	// ends the transaction (database/sql rolls it back) and the run between
	// chunks.
	ctx = context.WithoutCancel(ctx)
	start := time.Now()
	var sc itemScan
	i := from
	for ; i < len(actions) && i-from < runChunkMax && (i == from || time.Since(start) < runChunkHold); i++ {
		a := actions[i]
		a.Reviewer = c.run.Reviewer
		r, err := sc.scan(getItemStmt.QueryRowContext(ctx, a.ItemID))
		if errors.Is(err, sql.ErrNoRows) {
			err = notFound("item", a.ItemID)
		}
		if err == nil {
			err = check(policy.Situation{Item: r.Item, OpenAction: r.OpenAction(), RateLimitedUntil: fromMS(until), Now: now})
		}
		if err == nil {
			var rev any
			if r.Revision > 0 {
				rev = r.Revision
			}
			var res sql.Result
			var seen string
			var rows *sql.Rows
			if rows, err = notesStmt.QueryContext(ctx, a.ItemID); err == nil {
				seen, err = seenText(r.Item, rows)
			}
			if err != nil {
				return err
			}
			res, err = insertStmt.ExecContext(ctx, a.ItemID, string(a.Kind), a.Key, string(policy.InitialActionState), a.Reviewer,
				nullStr(a.Message), nullStr(a.FileName), ms(now), ms(now), rev, seen)
			if isUniqueViolation(err) {
				err = policy.Errorf(policy.CodeActionOpen, "item %s already has an open action; wait for it or cancel it", a.ItemID)
			} else if err == nil {
				a.ID, _ = res.LastInsertId()
				a.State, a.CreatedAt, a.UpdatedAt = policy.InitialActionState, now, now
			}
		}
		var pe *policy.Error
		var coded interface{ ConsoleCode() policy.Code }
		if errors.As(err, &pe) || errors.As(err, &coded) { // a judgement on the item: leave it out
			c.refused = append(c.refused, Refusal{ItemID: a.ItemID, Err: err})
			continue
		}
		if err != nil {
			return err
		}
		if _, err := linkStmt.ExecContext(ctx, a.ID, c.run.ID); err != nil {
			return err
		}
		if _, err := auditStmt.ExecContext(ctx, ms(now), a.Reviewer, a.ItemID, a.ID, string(a.Kind)+" requested",
			strings.TrimSpace(fmt.Sprintf("bulk run %d %s", c.run.ID, a.Message))); err != nil {
			return err
		}
		c.created = append(c.created, a)
	}
	c.end = i
	if i < len(actions) {
		return nil
	}
	return audit(ctx, tx, now, c.run.Reviewer, "", 0, fmt.Sprintf("bulk %s run %d queued", c.run.Kind, c.run.ID),
		fmt.Sprintf("%d confirmed, %d queued, %d left out", len(actions), createdBefore+len(c.created), refusedBefore+len(c.refused)))
}

// Run returns a bulk run.
func (db *DB) Run(ctx context.Context, id int64) (BulkRun, error) {
	var r BulkRun
	var created int64
	err := db.db.QueryRowContext(ctx, `SELECT id, kind, reviewer, confirmed, created_at FROM bulk_runs WHERE id = ?`, id).
		Scan(&r.ID, &r.Kind, &r.Reviewer, &r.Confirmed, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return r, notFound("bulk run", fmt.Sprint(id))
	}
	r.CreatedAt = fromMS(created)
	return r, err
}

// RunActions lists a run's actions as they are now, in the order queued.
func (db *DB) RunActions(ctx context.Context, runID int64) ([]Action, error) {
	return queryActions(ctx, db.db, `id IN (SELECT action_id FROM bulk_run_actions WHERE run_id = ?) ORDER BY id`, runID)
}

// CancelRun cancels, as one group, the actions of a run that the action
// machine lets the reviewer withdraw (those still queued: nothing of them
// reached the API). Actions already sent, or being sent, are left alone:
// only the service's answer ends them.
func (db *DB) CancelRun(ctx context.Context, runID int64, reviewer string) ([]Action, error) {
	var out []Action
	err := db.tx(ctx, func(tx *sql.Tx) error {
		out = nil
		now := db.now()
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM bulk_runs WHERE id = ?`, runID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return notFound("bulk run", fmt.Sprint(runID))
		} else if err != nil {
			return err
		}
		cur, err := queryActions(ctx, tx, `state IN `+sqlStates(policy.StatesAllowing(policy.EventCancel))+`
			AND id IN (SELECT action_id FROM bulk_run_actions WHERE run_id = ?) ORDER BY id`, runID)
		if err != nil {
			return err
		}
		for _, c := range cur {
			to, ok := policy.Transition(c.State, policy.EventCancel)
			if !ok {
				continue
			}
			a, err := moveAction(ctx, tx, c, to, now, `lease_until = NULL`)
			if err != nil {
				return err
			}
			if err := audit(ctx, tx, now, reviewer, a.ItemID, a.ID, "cancelled", fmt.Sprintf("with bulk run %d", runID)); err != nil {
				return err
			}
			out = append(out, a)
		}
		return audit(ctx, tx, now, reviewer, "", 0, fmt.Sprintf("bulk run %d: %d not yet sent cancelled", runID, len(out)), "")
	})
	return out, err
}

func isPrimaryKeyViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
}

// --- saved views ------------------------------------------------------------

// SavedView is a named set of filters and a sort; Spec is the workflow's
// JSON of it.
type SavedView struct {
	Name      string
	Spec      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SaveView creates a view or replaces the one of that name.
func (db *DB) SaveView(ctx context.Context, name, spec string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return policy.Errorf(policy.CodeInvalidInput, "a view needs a name")
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		now := ms(db.now())
		_, err := tx.ExecContext(ctx, `INSERT INTO saved_views(name, spec, created_at, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(name) DO UPDATE SET spec = excluded.spec, updated_at = excluded.updated_at`, name, spec, now, now)
		return err
	})
}

// Views lists the saved views, oldest first (the order of Ctrl+1…9).
func (db *DB) Views(ctx context.Context) ([]SavedView, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT name, spec, created_at, updated_at FROM saved_views ORDER BY created_at, name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SavedView
	for rows.Next() {
		var v SavedView
		var c, u int64
		if err := rows.Scan(&v.Name, &v.Spec, &c, &u); err != nil {
			return nil, err
		}
		v.CreatedAt, v.UpdatedAt = fromMS(c), fromMS(u)
		out = append(out, v)
	}
	return out, rows.Err()
}

// RenameView renames a view; the new name must be free.
func (db *DB) RenameView(ctx context.Context, from, to string) error {
	to = strings.TrimSpace(to)
	if to == "" {
		return policy.Errorf(policy.CodeInvalidInput, "a view needs a name")
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE saved_views SET name = ?, updated_at = ? WHERE name = ?`, to, ms(db.now()), from)
		if isUniqueViolation(err) || isPrimaryKeyViolation(err) {
			return policy.Errorf(policy.CodeConflict, "a view named %q already exists", to)
		}
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("view", from)
		}
		return nil
	})
}

// DeleteView deletes a view.
func (db *DB) DeleteView(ctx context.Context, name string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM saved_views WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("view", name)
		}
		return nil
	})
}
