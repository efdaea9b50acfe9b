package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	Sends         int                `json:"sends"`
	CreatedAt     time.Time          `json:"created_at"`
	UpdatedAt     time.Time          `json:"updated_at"`
}

const actionColumns = `id, item_id, kind, idempotency_key, state, reviewer, COALESCE(message, ''), COALESCE(file_name, ''),
	COALESCE(last_error_code, ''), COALESCE(last_error, ''), COALESCE(lease_until, 0), sends, created_at, updated_at`

func scanAction(s scanner) (Action, error) {
	var a Action
	var lease, created, updated int64
	err := s.Scan(&a.ID, &a.ItemID, &a.Kind, &a.Key, &a.State, &a.Reviewer, &a.Message, &a.FileName,
		&a.LastErrorCode, &a.LastError, &lease, &a.Sends, &created, &updated)
	a.LeaseUntil, a.CreatedAt, a.UpdatedAt = fromMS(lease), fromMS(created), fromMS(updated)
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
func (db *DB) Situation(ctx context.Context, itemID string) (policy.Situation, error) {
	return situation(ctx, db.db, itemID, db.now())
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
func (db *DB) CreateAction(ctx context.Context, a Action, file []byte, check func(policy.Situation) error) (Action, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		sit, err := situation(ctx, tx, a.ItemID, now)
		if err != nil {
			return err
		}
		if err := check(sit); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO actions(item_id, kind, idempotency_key, state, reviewer, message,
			file_name, created_at, updated_at) VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?)`,
			a.ItemID, string(a.Kind), a.Key, a.Reviewer, nullStr(a.Message), nullStr(a.FileName), ms(now), ms(now))
		if isUniqueViolation(err) {
			return policy.Errorf(policy.CodeActionOpen, "item %s already has an open action; wait for it or cancel it", a.ItemID)
		}
		if err != nil {
			return err
		}
		a.ID, _ = res.LastInsertId()
		a.State, a.CreatedAt, a.UpdatedAt = policy.ActionQueued, now, now
		if err := setActionRevision(ctx, tx, a.ID, sit.Item.Revision); err != nil { // team.go
			return err
		}
		if file != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO action_files(action_id, data) VALUES (?, ?)`, a.ID, file); err != nil {
				return err
			}
		}
		detail := a.Message
		if a.FileName != "" {
			detail = fmt.Sprintf("%s (%d bytes)", a.FileName, len(file))
		}
		return audit(ctx, tx, now, a.Reviewer, a.ItemID, a.ID, string(a.Kind)+" requested", detail)
	})
	return a, err
}

// ClaimAction moves an action to sending, under a lease, if it is queued,
// unknown, or sending with an expired lease (its process died). ok is false
// when another sender holds it: two flushes never send one action at once.
func (db *DB) ClaimAction(ctx context.Context, id int64, lease time.Duration) (a Action, ok bool, err error) {
	err = db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		row := tx.QueryRowContext(ctx, `UPDATE actions SET state = 'sending', lease_until = ?, sends = sends + 1, updated_at = ?
			WHERE id = ? AND (state IN ('queued','unknown') OR (state = 'sending' AND lease_until < ?))
			RETURNING `+actionColumns, ms(now.Add(lease)), ms(now), id, ms(now))
		a, err = scanAction(row)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		return audit(ctx, tx, now, a.Reviewer, a.ItemID, a.ID, "sending", fmt.Sprintf("send %d with key %s", a.Sends, a.Key))
	})
	return a, ok, err
}

// Finish is the outcome of one send of an action.
type Finish struct {
	State            policy.ActionState
	Item             *policy.Item // the service's answer, applied to the item
	ErrCode          policy.Code
	Err              string
	RateLimitedUntil time.Time
	Attempts         []Attempt
	Event            string // for the audit log
}

// FinishAction records the outcome of a send in one transaction: the
// action's new state, the item as the service answered it, the evidence of
// every attempt, the audit entry, and a rate-limit wait.
func (db *DB) FinishAction(ctx context.Context, id int64, f Finish) (Action, error) {
	var a Action
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		row := tx.QueryRowContext(ctx, `UPDATE actions SET state = ?, last_error_code = ?, last_error = ?, lease_until = NULL,
			updated_at = ? WHERE id = ? AND state = 'sending' RETURNING `+actionColumns,
			string(f.State), nullStr(string(f.ErrCode)), nullStr(f.Err), ms(now), id)
		var err error
		a, err = scanAction(row)
		if errors.Is(err, sql.ErrNoRows) {
			return policy.Errorf(policy.CodeConflict, "action %d is no longer being sent by this process", id)
		}
		if err != nil {
			return err
		}
		if f.Item != nil {
			if err := upsertItem(ctx, tx, *f.Item); err != nil { // team.go: the item and its notes
				return fmt.Errorf("applying the answer to item %s: %w", f.Item.ID, err)
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
	return a, err
}

// PendingActions are the actions a flush must handle, oldest first: queued,
// unknown, and sending ones whose lease ran out.
func (db *DB) PendingActions(ctx context.Context) ([]Action, error) {
	return queryActions(ctx, db.db, `state IN ('queued','unknown') OR (state = 'sending' AND lease_until < ?) ORDER BY id`, ms(db.now()))
}

// Outbox lists the actions not done yet (queued, sending, unknown), oldest first.
func (db *DB) Outbox(ctx context.Context) ([]Action, error) {
	return queryActions(ctx, db.db, `state IN ('queued','sending','unknown') ORDER BY id`)
}

// Action returns one action.
func (db *DB) Action(ctx context.Context, id int64) (Action, error) {
	as, err := queryActions(ctx, db.db, `id = ?`, id)
	if err != nil {
		return Action{}, err
	}
	if len(as) == 0 {
		return Action{}, notFound("action", fmt.Sprint(id))
	}
	return as[0], nil
}

// ItemActions lists an item's actions, newest first.
func (db *DB) ItemActions(ctx context.Context, itemID string) ([]Action, error) {
	return queryActions(ctx, db.db, `item_id = ? ORDER BY id DESC`, itemID)
}

// ActionFile returns the file stored with a replacement.
func (db *DB) ActionFile(ctx context.Context, id int64) ([]byte, error) {
	var data []byte
	err := db.db.QueryRowContext(ctx, `SELECT data FROM action_files WHERE action_id = ?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("file for action", fmt.Sprint(id))
	}
	return data, err
}

// CancelAction cancels a queued action: nothing of it reached the API.
func (db *DB) CancelAction(ctx context.Context, id int64, reviewer string) (Action, error) {
	var a Action
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		row := tx.QueryRowContext(ctx, `UPDATE actions SET state = 'cancelled', lease_until = NULL, updated_at = ?
			WHERE id = ? AND state = 'queued' RETURNING `+actionColumns, ms(now), id)
		var err error
		a, err = scanAction(row)
		if errors.Is(err, sql.ErrNoRows) {
			cur, err := queryActions(ctx, tx, `id = ?`, id)
			if err != nil || len(cur) == 0 {
				return notFound("action", fmt.Sprint(id))
			}
			return policy.Errorf(policy.CodeConflict, "action %d is %s; only a queued action can be cancelled", id, cur[0].State)
		}
		if err != nil {
			return err
		}
		return audit(ctx, tx, now, reviewer, a.ItemID, a.ID, "cancelled", "")
	})
	return a, err
}
