package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/trustscreen/reviewer/policy"
)

// What an action was decided on: the item's revision, sent as If-Match
// (contract 1.1), and what the reviewer saw of the item when she queued it,
// so that a send can tell whether the item changed since. Items synced
// without a revision mark the next sync as a full one.

// setActionSeen keeps with a new action what the reviewer saw: the item's
// revision when the cache knows it (sent as If-Match), and what she decides
// on (policy.Unseen), so that a send can tell whether the item changed
// since: the first send of an item whose revision the cache did not know
// (synced from a 1.0 service, or before the cache had the column) reads
// the item and compares; a 412 that only her own note caused is sent again.
func setActionSeen(ctx context.Context, tx *sql.Tx, id int64, saw policy.Item) error {
	if err := setActionRevision(ctx, tx, id, saw.Revision); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, noteIDsSQL, saw.ID)
	if err != nil {
		return err
	}
	text, err := seenText(saw, rows)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE actions SET seen = ? WHERE id = ?`, text, id)
	return err
}

// noteIDsSQL reads the service's ids of the notes the cache holds on an item.
const noteIDsSQL = `SELECT remote_id FROM notes WHERE item_id = ? AND remote_id IS NOT NULL ORDER BY id`

// seenText is the form of actions.seen for an item and the rows of
// noteIDsSQL on it (closed here).
func seenText(saw policy.Item, noteIDs *sql.Rows) (string, error) {
	ids, err := scanIDs(noteIDs)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(seenItem{Status: saw.Status, Attempt: saw.Attempt, RiskScore: saw.RiskScore,
		Recommendation: saw.Recommendation, ErrorCode: saw.ErrorCode, ReportedCode: saw.ReportedCode,
		FileName: saw.FileName, MediaType: saw.MediaType, SizeBytes: saw.SizeBytes, Notes: ids}.withDecision(saw))
	return string(b), err
}

// seenItem is the form of actions.seen (migration 00012).
type seenItem struct {
	Status         policy.Status         `json:"status"`
	Attempt        int                   `json:"attempt"`
	RiskScore      *int                  `json:"risk_score,omitempty"`
	Recommendation policy.Recommendation `json:"recommendation,omitempty"`
	ErrorCode      policy.Code           `json:"error_code,omitempty"`
	ReportedCode   string                `json:"reported_code,omitempty"`
	FileName       string                `json:"file_name"`
	MediaType      string                `json:"media_type"`
	SizeBytes      int64                 `json:"size_bytes"`
	Notes          []string              `json:"notes,omitempty"` // the service's ids of the notes the cache held
	// The current decision she saw, its id and state (contract 1.2;
	// decisions.go): another reviewer's decision since is no change of
	// hers to send over.
	DecisionID    string               `json:"decision_id,omitempty"`
	DecisionState policy.DecisionState `json:"decision_state,omitempty"`
}

func (si seenItem) withDecision(saw policy.Item) seenItem {
	if d := saw.CurrentDecision(); d != nil {
		si.DecisionID, si.DecisionState = d.ID, d.State
	}
	return si
}

func scanIDs(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// ActionSeen is what the reviewer saw of the item when she queued an
// action without a known revision: the fields she decides on, and the ids
// of the notes the cache held (Notes carry only their ID). ok is false
// when nothing was kept (the action is older than the column): then the
// cache's item, with ItemNoteIDs, is the best account of what she saw.
func (s *OutboxStore) ActionSeen(ctx context.Context, id int64) (saw policy.Item, ok bool, err error) {
	var raw sql.NullString
	err = s.db.QueryRowContext(ctx, `SELECT a.seen FROM actions a WHERE a.id = ?`, id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return saw, false, notFound("action", fmt.Sprint(id))
	}
	if err != nil || !raw.Valid {
		return saw, false, err
	}
	var si seenItem
	if err := json.Unmarshal([]byte(raw.String), &si); err != nil {
		return saw, false, fmt.Errorf("action %d: what the reviewer saw is unreadable: %w", id, err)
	}
	saw = policy.Item{Status: si.Status, Attempt: si.Attempt, RiskScore: si.RiskScore, Recommendation: si.Recommendation,
		ErrorCode: si.ErrorCode, ReportedCode: si.ReportedCode, FileName: si.FileName, MediaType: si.MediaType,
		SizeBytes: si.SizeBytes}
	for _, n := range si.Notes {
		saw.Notes = append(saw.Notes, policy.Note{ID: n})
	}
	if si.DecisionID != "" {
		saw.Team.Decisions = []policy.Decision{{ID: si.DecisionID, State: si.DecisionState}}
	}
	return saw, true, nil
}

// ItemNoteIDs are the service's ids of the notes the cache holds on an item.
func (s *NoteStore) ItemNoteIDs(ctx context.Context, itemID string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, noteIDsSQL, itemID)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

func setActionRevision(ctx context.Context, tx *sql.Tx, id, revision int64) error {
	if revision <= 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE actions SET revision = ? WHERE id = ?`, revision, id)
	return err
}

// SetActionRevision stores the revision an action goes out with, learnt
// after it was queued (the cache did not know it): every later send of the
// action carries the same If-Match.
func (s *OutboxStore) SetActionRevision(ctx context.Context, id, revision int64) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return setActionRevision(ctx, tx, id, revision) })
}

// ActionRevision is the item's revision stored with an action when it was
// queued, or learnt before its first send (0: none known, a 1.0 service).
func (s *OutboxStore) ActionRevision(ctx context.Context, id int64) (int64, error) {
	var rev sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT revision FROM actions WHERE id = ?`, id).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound("action", fmt.Sprint(id))
	}
	return rev.Int64, err
}

// keyFullSyncDue marks that the next sync must fetch every batch, not only
// the changed ones; its value says why.
const keyFullSyncDue = "full_sync_due"

// FullSyncDue says why the next sync must be a full one, "" when it need
// not: items that a field the service now fills (the revision) left
// empty, after a migration or the service's move from contract 1.0 to 1.1.
func (s *SyncStore) FullSyncDue(ctx context.Context) (string, error) {
	return getString(ctx, s.db, keyFullSyncDue)
}

// MarkFullSyncIfUnrevised marks the next sync as a full one when the cache
// holds an item without a revision; why is kept as the reason.
func (s *SyncStore) MarkFullSyncIfUnrevised(ctx context.Context, why string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sync_state(key, value) SELECT ?, ?
			WHERE EXISTS (SELECT 1 FROM items WHERE revision = 0)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, keyFullSyncDue, why)
		return err
	})
}

// FullSyncDone clears the mark after a full sync that began under it; a
// mark set again meanwhile (another reason) stays.
func (s *SyncStore) FullSyncDone(ctx context.Context, why string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sync_state WHERE key = ? AND value = ?`, keyFullSyncDue, why)
		return err
	})
}
