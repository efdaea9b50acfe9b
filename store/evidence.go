package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// AttemptRow is the evidence of one HTTP attempt as the cache keeps it: the
// attempt as the client recorded it, and what it was for.
type AttemptRow struct {
	ActionID  int64  `json:"action_id,omitempty"`
	ItemID    string `json:"item_id,omitempty"`
	Operation string `json:"operation"`
	policy.Attempt
}

func insertAttempts(ctx context.Context, tx *sql.Tx, actionID *int64, itemID, op string, as []policy.Attempt) error {
	if len(as) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO attempts(action_id, item_id, operation, number, started_at, deadline,
		spent_before_ms, connect_timeout_ms, request_timeout_ms, elapsed_ms, class, code, http_status, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, a := range as {
		var status any
		if a.HTTPStatus != 0 {
			status = a.HTTPStatus
		}
		if _, err := st.ExecContext(ctx, actionID, nullStr(itemID), op, a.Number, ms(a.Start), ms(a.Deadline),
			a.SpentBefore.Milliseconds(), a.ConnectTimeout.Milliseconds(), a.RequestTimeout.Milliseconds(),
			a.Elapsed.Milliseconds(), string(a.Class), nullStr(string(a.Code)), status, nullStr(a.Detail)); err != nil {
			return err
		}
	}
	return nil
}

// RecordAttempts keeps the evidence of a call that belongs to no action
// (a failed sync page, a reconciliation read).
func (s *EvidenceStore) RecordAttempts(ctx context.Context, itemID, op string, as []policy.Attempt) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return insertAttempts(ctx, tx, nil, itemID, op, as) })
}

// ItemAttempts lists the attempts made for an item, newest first.
func (s *EvidenceStore) ItemAttempts(ctx context.Context, itemID string) ([]AttemptRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT COALESCE(action_id, 0), COALESCE(item_id, ''), operation, number,
		started_at, deadline, spent_before_ms, connect_timeout_ms, request_timeout_ms, elapsed_ms, class,
		COALESCE(code, ''), COALESCE(http_status, 0), COALESCE(detail, '') FROM attempts WHERE item_id = ? ORDER BY id DESC`, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AttemptRow
	for rows.Next() {
		var a AttemptRow
		var start, deadline, spent, conn, req, elapsed int64
		if err := rows.Scan(&a.ActionID, &a.ItemID, &a.Operation, &a.Number, &start, &deadline, &spent, &conn, &req,
			&elapsed, &a.Class, &a.Code, &a.HTTPStatus, &a.Detail); err != nil {
			return nil, err
		}
		a.Start, a.Deadline = fromMS(start), fromMS(deadline)
		a.SpentBefore, a.ConnectTimeout = time.Duration(spent)*time.Millisecond, time.Duration(conn)*time.Millisecond
		a.RequestTimeout, a.Elapsed = time.Duration(req)*time.Millisecond, time.Duration(elapsed)*time.Millisecond
		out = append(out, a)
	}
	return out, rows.Err()
}

// AuditEntry is one line of the append-only audit log.
type AuditEntry struct {
	At       time.Time `json:"at"`
	Reviewer string    `json:"reviewer"`
	ItemID   string    `json:"item_id,omitempty"`
	ActionID int64     `json:"action_id,omitempty"`
	Event    string    `json:"event"`
	Detail   string    `json:"detail,omitempty"`
}

func audit(ctx context.Context, tx *sql.Tx, at time.Time, reviewer, itemID string, actionID int64, event, detail string) error {
	var aid any
	if actionID != 0 {
		aid = actionID
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO audit(at, reviewer, item_id, action_id, event, detail) VALUES (?, ?, ?, ?, ?, ?)`,
		ms(at), reviewer, nullStr(itemID), aid, event, nullStr(detail))
	return err
}

// Audit appends an entry to the audit log.
func (s *EvidenceStore) Audit(ctx context.Context, e AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		at := e.At
		if at.IsZero() {
			at = s.now()
		}
		return audit(ctx, tx, at, e.Reviewer, e.ItemID, e.ActionID, e.Event, e.Detail)
	})
}

// ItemAudit lists an item's audit trail, newest first.
func (s *EvidenceStore) ItemAudit(ctx context.Context, itemID string) ([]AuditEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at, reviewer, COALESCE(item_id, ''), COALESCE(action_id, 0), event,
		COALESCE(detail, '') FROM audit WHERE item_id = ? ORDER BY id DESC`, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at int64
		if err := rows.Scan(&at, &e.Reviewer, &e.ItemID, &e.ActionID, &e.Event, &e.Detail); err != nil {
			return nil, err
		}
		e.At = fromMS(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
