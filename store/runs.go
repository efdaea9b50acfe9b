package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

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
//
// CreateRun holds every action; CreateRunFrom is the same confirmation in
// memory that does not grow with the run.
func (s *RunStore) CreateRun(ctx context.Context, kind policy.ActionKind, reviewer string, actions []Action,
	check func(policy.Situation) error) (BulkRun, []Action, []Refusal, error) {
	for _, a := range actions {
		if a.Kind != kind {
			return BulkRun{Kind: kind, Reviewer: reviewer, Confirmed: len(actions)}, nil, nil,
				fmt.Errorf("action on %s is a %s in a %s run", a.ItemID, a.Kind, kind)
		}
	}
	var created []Action
	var refused []Refusal
	rest := actions
	run, _, err := s.CreateRunFrom(ctx, kind, reviewer, len(actions), func(n int) ([]Action, error) {
		part := rest[:min(n, len(rest))]
		rest = rest[len(part):]
		return part, nil
	}, check, func(c []Action, r []Refusal) {
		created, refused = append(created, c...), append(refused, r...)
	})
	return run, created, refused, err
}

// RunSource hands a bulk confirmation its next actions: at most n, and
// fewer (none) only when there are no more. The slice is the
// confirmation's until the next call.
type RunSource func(n int) ([]Action, error)

// CreateRunFrom is CreateRun of confirmed actions taken from next a chunk
// at a time, so that its memory does not grow with the run: after each
// chunk commits, chunk is called with what it queued and left out (never
// the same action twice), and nothing of it is kept. It returns the run
// and how many actions it queued.
func (s *RunStore) CreateRunFrom(ctx context.Context, kind policy.ActionKind, reviewer string, confirmed int, next RunSource,
	check func(policy.Situation) error, chunk func(created []Action, refused []Refusal)) (BulkRun, int, error) {
	run := BulkRun{Kind: kind, Reviewer: reviewer, Confirmed: confirmed}
	if confirmed < 0 {
		return run, 0, fmt.Errorf("a bulk run of %d actions", confirmed)
	}
	var queued, left int
	// pending holds the actions taken from next and not written yet: more
	// than a chunk's worth unless next has none left, so that the chunk
	// that writes the last one knows that it is the last.
	var pending []Action
	exhausted := false
	fill := func() error {
		for !exhausted && len(pending) <= runChunkMax {
			want := runChunkMax + 1 - len(pending)
			got, err := next(want)
			if err != nil {
				return err
			}
			for _, a := range got {
				if a.Kind != kind {
					return fmt.Errorf("action on %s is a %s in a %s run", a.ItemID, a.Kind, kind)
				}
			}
			pending = append(pending, got...)
			exhausted = len(got) < want
		}
		return nil
	}
	stopped := func(err error) (BulkRun, int, error) {
		if run.ID == 0 {
			return BulkRun{Kind: kind, Reviewer: reviewer, Confirmed: confirmed}, 0, err
		}
		return run, queued, runStopped(run, queued, err)
	}
	for first := true; first || len(pending) > 0; first = false {
		if !first {
			if err := yieldWrites(ctx); err != nil {
				return stopped(err)
			}
		}
		if err := fill(); err != nil {
			return stopped(err)
		}
		var c runChunk
		err := s.tx(ctx, func(tx *sql.Tx) error {
			now := s.now()
			c = runChunk{run: run}
			if first {
				res, err := tx.ExecContext(ctx, `INSERT INTO bulk_runs(kind, reviewer, confirmed, created_at) VALUES (?, ?, ?, ?)`,
					string(kind), reviewer, confirmed, ms(now))
				if err != nil {
					return err
				}
				c.run.ID, _ = res.LastInsertId()
				c.run.CreatedAt = now
			}
			return c.write(ctx, tx, now, pending, exhausted, queued, left, check)
		})
		if err != nil && ctx.Err() != nil {
			err = ctx.Err() // the transaction was rolled back for it
		}
		if err != nil {
			return stopped(err)
		}
		run = c.run
		queued, left = queued+len(c.created), left+len(c.refused)
		if chunk != nil {
			chunk(c.created, c.refused)
		}
		// What was written leaves pending; the rest moves to its front, so
		// that the buffer does not grow.
		pending = pending[:copy(pending, pending[c.end:])]
	}
	return run, queued, nil
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
// left out, and how many of the actions it was given it took (end). Nothing of it counts until the
// transaction commits.
type runChunk struct {
	run     BulkRun
	created []Action
	refused []Refusal
	end     int
}

// write queues actions from the first until the chunk is full (runChunkMax
// actions, or runChunkHold of holding the lock), with prepared statements:
// a statement prepared per action was a third of the time. The chunk that
// writes the last of them, when last says no more follow, writes the run's
// line in the audit log. createdBefore and refusedBefore are what earlier
// chunks did, for that line.
func (c *runChunk) write(ctx context.Context, tx *sql.Tx, now time.Time, actions []Action, last bool, createdBefore, refusedBefore int,
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
			LEFT JOIN actions a INDEXED BY actions_one_open ON a.item_id = i.id AND a.state IN ` + openSQL +
			triageJoin + " WHERE i.id = ?",
		`INSERT INTO actions(item_id, kind, idempotency_key, state, reviewer, message, file_name, created_at, updated_at, revision,
			seen, outcome, reason_code, comment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		`INSERT INTO bulk_run_actions(action_id, run_id) VALUES (?, ?)`,
		`INSERT INTO audit(at, reviewer, item_id, action_id, event, detail) VALUES (?, ?, ?, ?, ?, ?)`,
		noteIDsSQL, // what the reviewer saw is kept with each action (revisions.go: setActionSeen)
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
	i := 0
	for ; i < len(actions) && i < runChunkMax && (i == 0 || time.Since(start) < runChunkHold); i++ {
		a := actions[i]
		a.Reviewer = c.run.Reviewer
		r, err := sc.scan(getItemStmt.QueryRowContext(ctx, a.ItemID))
		if errors.Is(err, sql.ErrNoRows) {
			err = notFound("item", a.ItemID)
		}
		if err == nil && a.Planned > 0 && r.Revision != a.Planned {
			err = policy.Errorf(policy.CodeConflict, "item %s changed since the plan (revision %d, planned on %d)", a.ItemID, r.Revision, a.Planned)
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
			var outcome, reason any // a decision's (a bulk clear): what the reviewer chose for the run
			if a.Kind == policy.ActionDecision {
				outcome, reason = string(a.Outcome), a.ReasonCode
			}
			res, err = insertStmt.ExecContext(ctx, a.ItemID, string(a.Kind), a.Key, string(policy.InitialActionState), a.Reviewer,
				nullStr(a.Message), nullStr(a.FileName), ms(now), ms(now), rev, seen, outcome, reason, nullStr(a.Comment))
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
		detail := a.Message
		if d := decisionDetail(a); d != "" {
			detail = d
		}
		if _, err := auditStmt.ExecContext(ctx, ms(now), a.Reviewer, a.ItemID, a.ID, string(a.Kind)+" requested",
			strings.TrimSpace(fmt.Sprintf("bulk run %d %s", c.run.ID, detail))); err != nil {
			return err
		}
		c.created = append(c.created, a)
	}
	c.end = i
	if i < len(actions) || !last {
		return nil
	}
	return audit(ctx, tx, now, c.run.Reviewer, "", 0, fmt.Sprintf("bulk %s run %d queued", c.run.Kind, c.run.ID),
		fmt.Sprintf("%d confirmed, %d queued, %d left out", c.run.Confirmed, createdBefore+len(c.created), refusedBefore+len(c.refused)))
}

// Run returns a bulk run.
func (s *RunStore) Run(ctx context.Context, id int64) (BulkRun, error) {
	var r BulkRun
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT id, kind, reviewer, confirmed, created_at FROM bulk_runs WHERE id = ?`, id).
		Scan(&r.ID, &r.Kind, &r.Reviewer, &r.Confirmed, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return r, notFound("bulk run", fmt.Sprint(id))
	}
	r.CreatedAt = fromMS(created)
	return r, err
}

// RunActions lists a run's actions as they are now, in the order queued.
func (s *RunStore) RunActions(ctx context.Context, runID int64) ([]Action, error) {
	return queryActions(ctx, s.db, `id IN (SELECT action_id FROM bulk_run_actions WHERE run_id = ?) ORDER BY id`, runID)
}

// RunCounts counts a run's actions by state as they are now, in one read
// that holds nothing per action.
func (s *RunStore) RunCounts(ctx context.Context, runID int64) (map[policy.ActionState]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT a.state, COUNT(*) FROM bulk_run_actions r JOIN actions a ON a.id = r.action_id
		WHERE r.run_id = ? GROUP BY a.state`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[policy.ActionState]int{}
	for rows.Next() {
		var st policy.ActionState
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

// runPage is how many actions of a run EachRunAction reads at a time.
const runPage = 500

// EachRunAction calls fn with each action of a run as it is now, in the
// order queued (only those in states, when any are given), a page at a
// time: no read stays open while fn runs (fn may write to the cache), and
// nothing is held per action. An action that changes state between two
// pages is seen at most once.
func (s *RunStore) EachRunAction(ctx context.Context, runID int64, states []policy.ActionState, fn func(Action) error) error {
	where := ""
	if len(states) > 0 {
		where = " AND a.state IN " + sqlStates(states)
	}
	// The columns of actionColumns are the actions table's alone: the join
	// adds action_id and run_id, which it does not name.
	q := "SELECT " + actionColumns + ` FROM bulk_run_actions r JOIN actions a ON a.id = r.action_id
		WHERE r.run_id = ? AND r.action_id > ?` + where + " ORDER BY r.action_id LIMIT ?"
	page := make([]Action, 0, runPage)
	after := int64(0)
	for {
		page = page[:0]
		rows, err := s.db.QueryContext(ctx, q, runID, after, runPage)
		if err != nil {
			return err
		}
		for rows.Next() {
			a, err := scanAction(rows)
			if err != nil {
				rows.Close()
				return err
			}
			page = append(page, a)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		for _, a := range page {
			if err := fn(a); err != nil {
				return err
			}
		}
		if len(page) < runPage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// CancelRun cancels, as one group, the actions of a run that the action
// machine lets the reviewer withdraw (those still queued: nothing of them
// reached the API). Actions already sent, or being sent, are left alone:
// only the service's answer ends them.
func (s *RunStore) CancelRun(ctx context.Context, runID int64, reviewer string) ([]Action, error) {
	var out []Action
	err := s.tx(ctx, func(tx *sql.Tx) error {
		out = nil
		now := s.now()
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
			if err := audit(ctx, tx, now, reviewer, a.ItemID, a.ID, string(policy.ActionCancelled), fmt.Sprintf("with bulk run %d", runID)); err != nil {
				return err
			}
			out = append(out, a)
		}
		return audit(ctx, tx, now, reviewer, "", 0, fmt.Sprintf("bulk run %d: %d not yet sent cancelled", runID, len(out)), "")
	})
	return out, err
}
