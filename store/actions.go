package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Action is a reviewer's action in the outbox.
type Action struct {
	ID            int64              `json:"id"`
	ItemID        string             `json:"item_id"`
	Kind          policy.ActionKind  `json:"kind"`
	Key           string             `json:"idempotency_key"`
	State         policy.ActionState `json:"state"`
	Reviewer      string             `json:"reviewer"`
	Message       string             `json:"message,omitempty"`
	FileName      string             `json:"file_name,omitempty"`
	LastErrorCode policy.Code        `json:"last_error_code,omitempty"`
	LastError     string             `json:"last_error"`
	LeaseUntil    time.Time          `json:"-"`
	// NotBefore is, for a queued action the service rate limited, the
	// Retry-After its answer gave: no sender takes it before then (zero:
	// it may go out now).
	NotBefore time.Time `json:"not_before,omitzero"`
	Sends     int       `json:"sends"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// LeasedFrom is the state the action was in when LeaseAction took it
	// ("" elsewhere): queued means nothing of it has reached the service
	// yet, so this send is its key's first.
	LeasedFrom policy.ActionState `json:"-"`
	// A decision's outcome, reason code and comment, and a confirmation's
	// decision and answer (contract 1.2; migration 00017): what the
	// reviewer chose, sent with the action's key.
	Outcome    policy.Outcome `json:"outcome,omitempty"`
	ReasonCode string         `json:"reason_code,omitempty"`
	Comment    string         `json:"comment,omitempty"`
	DecisionID string         `json:"decision_id,omitempty"`
	Agree      bool           `json:"agree,omitempty"`
}

const actionColumns = `id, item_id, kind, idempotency_key, state, reviewer, COALESCE(message, ''), COALESCE(file_name, ''),
	COALESCE(last_error_code, ''), COALESCE(last_error, ''), COALESCE(lease_until, 0), sends, created_at, updated_at,
	` + notBeforeColumn + `, ` + decisionColumns

// notBeforeColumn is in actionColumns: migration 00013 added it, so a
// salvage of a damaged cache made before it reads a zero instead
// (salvage.go).
const notBeforeColumn = `COALESCE(not_before, 0)`

// decisionColumns are the last of actionColumns: migration 00017 added
// them, so a salvage of a damaged cache made before it reads
// noDecisionColumns instead (salvage.go).
const decisionColumns = `COALESCE(outcome, ''), COALESCE(reason_code, ''), COALESCE(comment, ''), COALESCE(decision_id, ''), COALESCE(agree, 0)`

// noDecisionColumns stand for decisionColumns in a cache without them.
const noDecisionColumns = `'', '', '', '', 0`

func scanAction(s scanner) (Action, error) {
	var a Action
	var lease, created, updated, notBefore int64
	err := s.Scan(&a.ID, &a.ItemID, &a.Kind, &a.Key, &a.State, &a.Reviewer, &a.Message, &a.FileName,
		&a.LastErrorCode, &a.LastError, &lease, &a.Sends, &created, &updated, &notBefore,
		&a.Outcome, &a.ReasonCode, &a.Comment, &a.DecisionID, &a.Agree)
	a.LeaseUntil, a.CreatedAt, a.UpdatedAt, a.NotBefore = fromMS(lease), fromMS(created), fromMS(updated), fromMS(notBefore)
	return a, err
}

func queryActions(ctx context.Context, q querier, where string, args ...any) ([]Action, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+actionColumns+" FROM actions WHERE "+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		a, err := scanAction(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Situation is what policy needs to judge an action on an item.
func (s *OutboxStore) Situation(ctx context.Context, itemID string) (policy.Situation, error) {
	return situation(ctx, s.db, itemID, s.now())
}

func situation(ctx context.Context, q querier, itemID string, now time.Time) (policy.Situation, error) {
	r, err := getItem(ctx, q, itemID)
	if err != nil {
		return policy.Situation{}, err
	}
	until, err := getState(ctx, q, keyRateLimited)
	if err != nil {
		return policy.Situation{}, err
	}
	return policy.Situation{Item: r.Item, OpenAction: r.OpenAction(), RateLimitedUntil: fromMS(until), Now: now}, nil
}

// CreateAction writes a reviewer's intent, with its Idempotency-Key, before
// any call. check judges the item's situation inside the same transaction;
// the partial UNIQUE index is the last word when two processes race: the
// insert that loses is refused with ACTION_OPEN.
func (s *OutboxStore) CreateAction(ctx context.Context, a Action, file []byte, check func(policy.Situation) error) (Action, error) {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		sit, err := situation(ctx, tx, a.ItemID, now)
		if err != nil {
			return err
		}
		if err := check(sit); err != nil {
			return err
		}
		if a, err = insertAction(ctx, tx, now, a, sit.Item); err != nil {
			return err
		}
		if file != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO action_files(action_id, data) VALUES (?, ?)`, a.ID, file); err != nil {
				return err
			}
		}
		detail := a.Message
		if d := decisionDetail(a); d != "" {
			detail = d
		}
		if a.FileName != "" {
			detail = fmt.Sprintf("%s (%d bytes)", a.FileName, len(file))
		}
		return audit(ctx, tx, now, a.Reviewer, a.ItemID, a.ID, string(a.Kind)+" requested", detail)
	})
	return a, err
}

// insertAction writes an action in the machine's initial state with what
// the reviewer saw of the item (its revision, sent as If-Match, or without
// one what she decides on: setActionSeen), inside the caller's
// transaction: one action (CreateAction) or a bulk run (CreateRun). The
// partial UNIQUE index refuses a second open action on the item.
func insertAction(ctx context.Context, tx *sql.Tx, now time.Time, a Action, saw policy.Item) (Action, error) {
	var outcome, reason, agree any
	if a.Kind == policy.ActionDecision {
		outcome, reason = string(a.Outcome), a.ReasonCode
	}
	if a.Kind == policy.ActionConfirmation {
		agree = a.Agree
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO actions(item_id, kind, idempotency_key, state, reviewer, message,
		file_name, created_at, updated_at, outcome, reason_code, comment, decision_id, agree) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ItemID, string(a.Kind), a.Key, string(policy.InitialActionState), a.Reviewer, nullStr(a.Message), nullStr(a.FileName), ms(now), ms(now),
		outcome, reason, nullStr(a.Comment), nullStr(a.DecisionID), agree)
	if isUniqueViolation(err) {
		return a, policy.Errorf(policy.CodeActionOpen, "item %s already has an open action; wait for it or cancel it", a.ItemID)
	}
	if err != nil {
		return a, err
	}
	a.ID, _ = res.LastInsertId()
	a.State, a.CreatedAt, a.UpdatedAt = policy.InitialActionState, now, now
	return a, setActionSeen(ctx, tx, a.ID, saw) // revisions.go
}

// LeaseAction takes an action for one send under a lease, as the action
// machine says (policy.EventLease): a queued action starts its first send; an
// unknown one is reconciled; a sending one whose lease ran out is taken over
// and becomes unknown, for its sender may have sent it. The lease needs the
// lease free: ok is false when another sender holds it (a is then the action
// as it is, with the lease's end) or when the action is settled. Each lease
// counts a send; Finish.Lease must carry that count back (the fence). A
// queued action the service rate limited is not leased before its
// NotBefore (ok false, a says until when).
func (s *OutboxStore) LeaseAction(ctx context.Context, id int64, lease time.Duration) (a Action, ok bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		cur, err := getAction(ctx, tx, id)
		if err != nil {
			return err
		}
		a = cur
		to, allowed := policy.Transition(cur.State, policy.EventLease)
		if !allowed || leaseHeld(cur, now) || Waiting(cur, now) {
			return nil
		}
		a, err = moveAction(ctx, tx, cur, to, now, `lease_until = ?, sends = sends + 1, not_before = NULL`, ms(now.Add(lease)))
		if err != nil {
			return err
		}
		ok, a.LeasedFrom = true, cur.State
		event, detail := string(policy.ActionSending), fmt.Sprintf("send %d with key %s", a.Sends, a.Key)
		switch cur.State {
		case policy.ActionUnknown:
			event = "reconciling"
		case policy.ActionSending:
			event = "taken over"
			detail = fmt.Sprintf("the lease of send %d ran out at %s; it may have been sent: reconciling with key %s",
				cur.Sends, cur.LeaseUntil.Format(time.RFC3339), a.Key)
		}
		return audit(ctx, tx, now, a.Reviewer, a.ItemID, a.ID, event, detail)
	})
	return a, ok, err
}

// Waiting reports whether an action is queued with a not-before time
// (a rate limit's Retry-After) still ahead of now: no sender takes it yet.
func Waiting(a Action, now time.Time) bool {
	return policy.WaitingRetryAfter(a.State, a.NotBefore, now)
}

// leaseHeld reports whether a sender holds the action's lease at now.
func leaseHeld(a Action, now time.Time) bool {
	return !a.LeaseUntil.IsZero() && !a.LeaseUntil.Before(now)
}

// getAction reads one action inside a transaction.
func getAction(ctx context.Context, q querier, id int64) (Action, error) {
	as, err := queryActions(ctx, q, `id = ?`, id)
	if err != nil {
		return Action{}, err
	}
	if len(as) == 0 {
		return Action{}, notFound("action", fmt.Sprint(id))
	}
	return as[0], nil
}

// moveAction writes a transition that the machine allowed from cur: the
// WHERE clause is the optimistic check that nobody moved the row since it
// was read (the transaction is IMMEDIATE, so nobody can).
func moveAction(ctx context.Context, tx *sql.Tx, cur Action, to policy.ActionState, now time.Time, set string, args ...any) (Action, error) {
	q := `UPDATE actions SET state = ?, updated_at = ?`
	if set != "" {
		q += ", " + set
	}
	q += ` WHERE id = ? AND state = ? AND sends = ? RETURNING ` + actionColumns
	all := append([]any{string(to), ms(now)}, args...)
	all = append(all, cur.ID, string(cur.State), cur.Sends)
	return scanAction(tx.QueryRowContext(ctx, q, all...))
}

// ErrFenced is wrapped by FinishAction when the sender's lease is no longer
// the action's newest: its lease ran out and another sender took it over.
var ErrFenced = errors.New("another sender took the action over after this one's lease ran out")

// Finish is the outcome of one send of an action.
type Finish struct {
	On      policy.ActionEvent // what the send met; the machine says where it leads
	Lease   int                // the Sends of the lease this outcome belongs to (the fence)
	Item    *policy.Item       // the service's answer, applied to the item
	Applied *policy.Item       // items.go: the item a refusal carried (412, 409), applied whatever the state
	ErrCode policy.Code
	Err     string
	// RateLimitedUntil is a rate limit's end (Retry-After): the API's wait,
	// and the not-before time of an action it queues again.
	RateLimitedUntil time.Time
	Attempts         []policy.Attempt
	Event            string // for the audit log
}

// FinishAction records the outcome of a send in one transaction: the
// action's new state (policy.Transition of its state and f.On), the item as
// the service answered it, the evidence of every attempt, the audit entry,
// and a rate-limit wait. Only the holder of the newest lease may finish it:
// a sender whose lease ran out and was taken over gets ErrFenced (with the
// action as it is); of its outcome only the evidence of its attempts and an
// audit entry are written.
func (s *OutboxStore) FinishAction(ctx context.Context, id int64, f Finish) (Action, error) {
	var a Action
	fenced := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		cur, err := getAction(ctx, tx, id)
		if err != nil {
			return err
		}
		if cur.Sends != f.Lease || cur.LeaseUntil.IsZero() {
			// Keep the evidence of what this sender did, and say so.
			fenced, a = true, cur
			if err := insertAttempts(ctx, tx, &cur.ID, cur.ItemID, string(cur.Kind), f.Attempts); err != nil {
				return err
			}
			return audit(ctx, tx, now, cur.Reviewer, cur.ItemID, cur.ID, "outcome of a stale send ignored",
				fmt.Sprintf("send %d met %s (%s) after its lease ran out; the action was taken over (send %d, %s)",
					f.Lease, f.On, f.Event, cur.Sends, cur.State))
		}
		to, ok := policy.Transition(cur.State, f.On)
		if !ok {
			return policy.Errorf(policy.CodeConflict, "action %d is %s: %s is not allowed there", id, cur.State, f.On)
		}
		var notBefore any // only a queued action waits; one that goes out now, or is settled, does not
		if to == policy.ActionQueued && f.RateLimitedUntil.After(now) {
			notBefore = ms(f.RateLimitedUntil)
		}
		a, err = moveAction(ctx, tx, cur, to, now, `last_error_code = ?, last_error = ?, lease_until = NULL, not_before = ?`,
			nullStr(string(f.ErrCode)), nullStr(f.Err), notBefore)
		if err != nil {
			return err
		}
		if f.Item != nil && to == policy.ActionDone {
			if err := upsertItem(ctx, tx, *f.Item, now); err != nil { // items.go: the item and its notes
				return fmt.Errorf("applying the answer to item %s: %w", f.Item.ID, err)
			}
		}
		if f.Applied != nil {
			if err := upsertItem(ctx, tx, *f.Applied, now); err != nil {
				return fmt.Errorf("applying item %s as the refusal carried it: %w", f.Applied.ID, err)
			}
		}
		if err := insertAttempts(ctx, tx, &a.ID, a.ItemID, string(a.Kind), f.Attempts); err != nil {
			return err
		}
		if !f.RateLimitedUntil.IsZero() {
			if err := setState(ctx, tx, keyRateLimited, ms(f.RateLimitedUntil)); err != nil {
				return err
			}
		}
		return audit(ctx, tx, now, a.Reviewer, a.ItemID, a.ID, f.Event, f.Err)
	})
	if err == nil && fenced {
		err = fmt.Errorf("action %d (send %d): %w", id, f.Lease, ErrFenced)
	}
	return a, err
}

// PendingActions are the actions a flush may lease now, oldest first:
// those the machine lets a lease move (queued, unknown, sending) whose lease
// is free (a sending one only once its lease ran out), and not waiting for
// a rate limit's end.
func (s *OutboxStore) PendingActions(ctx context.Context) ([]Action, error) {
	now := ms(s.now())
	return queryActions(ctx, s.db, `state IN `+leasableSQL+` AND (lease_until IS NULL OR lease_until < ?)
		AND (not_before IS NULL OR not_before <= ?) ORDER BY id`, now, now)
}

// OutboxCount is what waits in the outbox, counted: the open actions by
// state, the queued ones that wait for a rate limit's end, and the notes
// not yet on the service.
type OutboxCount struct {
	Queued, Sending, Unknown int
	Waiting                  int       // of Queued: rate limited, not sent before WaitUntil
	WaitUntil                time.Time // the last of their not-before times
	Notes                    int
}

// Empty reports whether nothing waits.
func (c OutboxCount) Empty() bool { return c.Queued+c.Sending+c.Unknown+c.Notes == 0 }

// CountOutbox counts the outbox (the window shows it at all times) with
// the partial indexes of open actions and notes, however long it is.
func (s *OutboxStore) CountOutbox(ctx context.Context) (OutboxCount, error) {
	var c OutboxCount
	now := ms(s.now())
	rows, err := s.db.QueryContext(ctx, `SELECT state, COUNT(*), COALESCE(SUM(not_before > ?), 0), COALESCE(MAX(not_before), 0)
		FROM actions WHERE state IN `+openSQL+` GROUP BY state`, now)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var st policy.ActionState
		var n, waiting, until int64
		if err := rows.Scan(&st, &n, &waiting, &until); err != nil {
			return c, err
		}
		switch st {
		case policy.ActionQueued:
			c.Queued, c.Waiting = int(n), int(waiting)
			if waiting > 0 {
				c.WaitUntil = fromMS(until)
			}
		case policy.ActionSending:
			c.Sending = int(n)
		case policy.ActionUnknown:
			c.Unknown = int(n)
		}
	}
	if err := rows.Err(); err != nil {
		return c, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM notes WHERE state IN `+noteOpenSQL+` AND idempotency_key IS NOT NULL`).Scan(&c.Notes)
	return c, err
}

// Outbox lists the open actions (those that still hold their item), oldest first.
func (s *OutboxStore) Outbox(ctx context.Context) ([]Action, error) {
	return queryActions(ctx, s.db, `state IN `+openSQL+` ORDER BY id`)
}

// Action returns one action.
func (s *OutboxStore) Action(ctx context.Context, id int64) (Action, error) {
	return getAction(ctx, s.db, id)
}

// ItemActions lists an item's actions, newest first.
func (s *OutboxStore) ItemActions(ctx context.Context, itemID string) ([]Action, error) {
	return queryActions(ctx, s.db, `item_id = ? ORDER BY id DESC`, itemID)
}

// ActionFile returns the file stored with a replacement.
func (s *OutboxStore) ActionFile(ctx context.Context, id int64) ([]byte, error) {
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM action_files WHERE action_id = ?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("file for action", fmt.Sprint(id))
	}
	return data, err
}

// CancelAction withdraws an action, if the machine allows it: only one
// that nothing of has left (queued). One that may have reached the service
// is never cancelled: only the service's answer for its key ends it.
func (s *OutboxStore) CancelAction(ctx context.Context, id int64, reviewer string) (Action, error) {
	var a Action
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		cur, err := getAction(ctx, tx, id)
		if err != nil {
			return err
		}
		to, ok := policy.Transition(cur.State, policy.EventCancel)
		if !ok {
			return policy.Errorf(policy.CodeConflict, "action %d is %s; %s", id, cur.State, whyNotCancel(cur.State))
		}
		a, err = moveAction(ctx, tx, cur, to, now, `lease_until = NULL`)
		if err != nil {
			return err
		}
		return audit(ctx, tx, now, reviewer, a.ItemID, a.ID, string(policy.ActionCancelled), "")
	})
	return a, err
}

func whyNotCancel(s policy.ActionState) string {
	switch {
	case s.MayHaveRun():
		return "it may have reached the service, so only the service's answer for its key ends it: run 'reviewer flush' to reconcile it with the same key"
	case !s.Open():
		return "it is settled"
	}
	return "only an action that was never sent can be cancelled"
}

// The sets of states the store's SQL needs, from the action machine: the
// store never spells a state set of its own. They are literals in the SQL
// (not bound parameters) so that SQLite can use the partial indexes, whose
// WHERE clauses TestSchemaFollowsTheActionMachine checks against the same sets.
var (
	openSQL     = sqlStates(policy.OpenActionStates())
	leasableSQL = sqlStates(policy.StatesAllowing(policy.EventLease))
)

// needingStatuses are the statuses in which an item with no open action
// needs the reviewer, as policy.NeedsReviewer says.
func needingStatuses() []policy.Status {
	var out []policy.Status
	for _, st := range policy.Statuses() {
		if policy.NeedsReviewer(policy.Situation{Item: policy.Item{Status: st}}) {
			out = append(out, st)
		}
	}
	return out
}

// sqlStatuses writes statuses as an SQL list: ('error').
func sqlStatuses(sts []policy.Status) string {
	q := make([]string, len(sts))
	for i, st := range sts {
		q[i] = sqlState(policy.ActionState(st)) // the same check: lower-case words only
	}
	return "(" + strings.Join(q, ",") + ")"
}

func statesWhere(pred func(policy.ActionState) bool) []policy.ActionState {
	var out []policy.ActionState
	for _, s := range policy.ActionStates() {
		if pred(s) {
			out = append(out, s)
		}
	}
	return out
}

// sqlStates writes states (of an action, a note or an item) as an SQL
// list: ('queued','sending').
func sqlStates[S ~string](states []S) string {
	q := make([]string, len(states))
	for i, s := range states {
		q[i] = sqlState(s)
	}
	return "(" + strings.Join(q, ",") + ")"
}

// sqlState writes a state as an SQL literal: 'queued'.
func sqlState[S ~string](s S) string {
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			panic(fmt.Sprintf("state %q cannot be written into SQL", s))
		}
	}
	return "'" + string(s) + "'"
}
