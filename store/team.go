package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Working as a team (contract 1.1): the item's revision, status_since and
// claim live in the items table; notes in their own table with their own
// outbox (see migration 00004 for why they are not actions); the reviewer's
// identity from GET /v1/me in sync_state, for offline use.

func nullMS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ms(t)
}

func claimReviewer(it policy.Item) any {
	if it.Claim == nil {
		return nil
	}
	return it.Claim.Reviewer
}

func claimExpires(it policy.Item) any {
	if it.Claim == nil {
		return nil
	}
	return ms(it.Claim.ExpiresAt)
}

// teamColumns scans the 1.1 columns of an item row.
type teamColumns struct {
	since, expires sql.NullInt64
	reviewer       sql.NullString
}

func (tm teamColumns) apply(it *policy.Item) {
	if tm.since.Valid {
		it.StatusSince = fromMS(tm.since.Int64)
	}
	if tm.reviewer.Valid && tm.expires.Valid {
		it.Claim = &policy.Claim{Reviewer: tm.reviewer.String, ExpiresAt: fromMS(tm.expires.Int64)}
	}
}

// upsertItem writes an item the service sent, and its notes.
func upsertItem(ctx context.Context, tx *sql.Tx, it policy.Item) error {
	if _, err := tx.ExecContext(ctx, upsertItemSQL, itemArgs(it)...); err != nil {
		return err
	}
	return applyNotes(ctx, tx, it)
}

// applyNotes keeps the notes the service sent with an item. A note the
// cache already holds (by the service's id) is left as it is.
func applyNotes(ctx context.Context, tx *sql.Tx, it policy.Item) error {
	for _, n := range it.Notes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO notes(item_id, remote_id, author, text, state, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'done', ?, ?) ON CONFLICT(remote_id) DO NOTHING`,
			it.ID, n.ID, n.Author, n.Text, ms(n.CreatedAt), ms(n.CreatedAt)); err != nil {
			return fmt.Errorf("note %s of item %s: %w", n.ID, it.ID, err)
		}
	}
	return nil
}

// ApplyItem writes an item the service answered outside of an action (a
// claim, a release, a refusal carrying the item, a read after a note) and
// audits the event, if one is named.
func (db *DB) ApplyItem(ctx context.Context, it policy.Item, reviewer, event, detail string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := upsertItem(ctx, tx, it); err != nil {
			return fmt.Errorf("applying item %s: %w", it.ID, err)
		}
		if event == "" {
			return nil
		}
		return audit(ctx, tx, db.now(), reviewer, it.ID, 0, event, detail)
	})
}

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
		FileName: saw.FileName, MediaType: saw.MediaType, SizeBytes: saw.SizeBytes, Notes: ids})
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
func (db *DB) ActionSeen(ctx context.Context, id int64) (saw policy.Item, ok bool, err error) {
	var raw sql.NullString
	err = db.db.QueryRowContext(ctx, `SELECT a.seen FROM actions a WHERE a.id = ?`, id).Scan(&raw)
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
	return saw, true, nil
}

// ItemNoteIDs are the service's ids of the notes the cache holds on an item.
func (db *DB) ItemNoteIDs(ctx context.Context, itemID string) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, noteIDsSQL, itemID)
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
func (db *DB) SetActionRevision(ctx context.Context, id, revision int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error { return setActionRevision(ctx, tx, id, revision) })
}

// ActionRevision is the item's revision stored with an action when it was
// queued, or learnt before its first send (0: none known, a 1.0 service).
func (db *DB) ActionRevision(ctx context.Context, id int64) (int64, error) {
	var rev sql.NullInt64
	err := db.db.QueryRowContext(ctx, `SELECT revision FROM actions WHERE id = ?`, id).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound("action", fmt.Sprint(id))
	}
	return rev.Int64, err
}

// Identity is who the service says the reviewer is, and which contract it
// speaks, as last learnt.
type Identity struct {
	Reviewer    string
	DisplayName string
	APIVersion  string // "1.1", "1.0", or "" when not known yet
}

func getString(ctx context.Context, q querier, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM sync_state WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

func setString(ctx context.Context, tx *sql.Tx, key, v string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO sync_state(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, v)
	return err
}

// Identity returns what the cache knows of the reviewer's identity.
func (db *DB) Identity(ctx context.Context) (Identity, error) {
	var id Identity
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{{"me_reviewer", &id.Reviewer}, {"me_display_name", &id.DisplayName}, {"api_version", &id.APIVersion}} {
		if *f.dst, err = getString(ctx, db.db, f.key); err != nil {
			return id, err
		}
	}
	return id, nil
}

// SetIdentity stores what the service said: the reviewer (when it offers
// GET /v1/me) and the contract version.
func (db *DB) SetIdentity(ctx context.Context, id Identity) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if id.Reviewer != "" {
			if err := setString(ctx, tx, "me_reviewer", id.Reviewer); err != nil {
				return err
			}
			if err := setString(ctx, tx, "me_display_name", id.DisplayName); err != nil {
				return err
			}
		}
		return setString(ctx, tx, "api_version", id.APIVersion)
	})
}

// NoteRow is a note as the cache holds it: one the service sent, or one a
// reviewer wrote here, with its place in the notes outbox.
type NoteRow struct {
	ID            int64              `json:"-"`
	ItemID        string             `json:"item_id"`
	RemoteID      string             `json:"id,omitempty"` // the service's id, once known
	Key           string             `json:"idempotency_key,omitempty"`
	Author        string             `json:"author"`
	Text          string             `json:"text"`
	State         policy.ActionState `json:"state"`
	LastErrorCode policy.Code        `json:"last_error_code,omitempty"`
	LastError     string             `json:"last_error,omitempty"`
	Sends         int                `json:"sends"`
	CreatedAt     time.Time          `json:"created_at"`
	LeaseUntil    time.Time          `json:"-"`
}

const noteColumns = `id, item_id, COALESCE(remote_id, ''), COALESCE(idempotency_key, ''), author, text, state,
	COALESCE(last_error_code, ''), COALESCE(last_error, ''), sends, created_at, COALESCE(lease_until, 0)`

func scanNote(s scanner) (NoteRow, error) {
	var n NoteRow
	var created, lease int64
	err := s.Scan(&n.ID, &n.ItemID, &n.RemoteID, &n.Key, &n.Author, &n.Text, &n.State, &n.LastErrorCode, &n.LastError, &n.Sends, &created, &lease)
	n.CreatedAt, n.LeaseUntil = fromMS(created), fromMS(lease)
	return n, err
}

func getNote(ctx context.Context, q querier, id int64) (NoteRow, error) {
	ns, err := queryNotes(ctx, q, `id = ?`, id)
	if err != nil {
		return NoteRow{}, err
	}
	if len(ns) == 0 {
		return NoteRow{}, notFound("note", fmt.Sprint(id))
	}
	return ns[0], nil
}

func queryNotes(ctx context.Context, q querier, where string, args ...any) ([]NoteRow, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+noteColumns+" FROM notes WHERE "+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []NoteRow
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// CreateNote writes a reviewer's note with its Idempotency-Key before any
// call. Notes take no slot of the item's one open action.
func (db *DB) CreateNote(ctx context.Context, n NoteRow) (NoteRow, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := getItem(ctx, tx, n.ItemID); err != nil {
			return err
		}
		now := db.now()
		res, err := tx.ExecContext(ctx, `INSERT INTO notes(item_id, idempotency_key, author, text, state, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'queued', ?, ?)`, n.ItemID, n.Key, n.Author, n.Text, ms(now), ms(now))
		if err != nil {
			return err
		}
		n.ID, _ = res.LastInsertId()
		n.State, n.CreatedAt = policy.ActionQueued, now
		return audit(ctx, tx, now, n.Author, n.ItemID, 0, "note written", n.Text)
	})
	return n, err
}

// LeaseNote takes a note for one send under a lease, following the action
// machine exactly as LeaseAction does (policy.EventLease): ok is false when
// another sender holds the lease or the note is settled.
func (db *DB) LeaseNote(ctx context.Context, id int64, lease time.Duration) (n NoteRow, ok bool, err error) {
	err = db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		cur, err := getNote(ctx, tx, id)
		if err != nil {
			return err
		}
		n = cur
		to, allowed := policy.Transition(cur.State, policy.EventLease)
		if !allowed || (!cur.LeaseUntil.IsZero() && !cur.LeaseUntil.Before(now)) {
			return nil
		}
		n, err = moveNote(ctx, tx, cur, to, now, `lease_until = ?, sends = sends + 1`, ms(now.Add(lease)))
		ok = err == nil
		return err
	})
	return n, ok, err
}

func moveNote(ctx context.Context, tx *sql.Tx, cur NoteRow, to policy.ActionState, now time.Time, set string, args ...any) (NoteRow, error) {
	q := `UPDATE notes SET state = ?, updated_at = ?, ` + set + ` WHERE id = ? AND state = ? AND sends = ? RETURNING ` + noteColumns
	all := append([]any{string(to), ms(now)}, args...)
	all = append(all, cur.ID, string(cur.State), cur.Sends)
	return scanNote(tx.QueryRowContext(ctx, q, all...))
}

// NoteFinish is the outcome of one send of a note.
type NoteFinish struct {
	On       policy.ActionEvent // the machine says where it leads
	Lease    int                // the Sends of the lease it belongs to (the fence)
	Remote   *policy.Note       // the service's note, when done
	Item     *policy.Item       // an item a refusal carried, applied
	ErrCode  policy.Code
	Err      string
	Attempts []Attempt
	Event    string
}

// FinishNote records the outcome of a send in one transaction.
func (db *DB) FinishNote(ctx context.Context, id int64, f NoteFinish) (NoteRow, error) {
	var n NoteRow
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		var remote, created any
		if f.Remote != nil {
			remote, created = f.Remote.ID, ms(f.Remote.CreatedAt)
			// A sync may have brought this very note before its answer came.
			if _, err := tx.ExecContext(ctx, `DELETE FROM notes WHERE remote_id = ? AND idempotency_key IS NULL`, f.Remote.ID); err != nil {
				return err
			}
		}
		cur, err := getNote(ctx, tx, id)
		if err != nil {
			return err
		}
		if cur.Sends != f.Lease || cur.LeaseUntil.IsZero() {
			return fmt.Errorf("note %d (send %d): %w", id, f.Lease, ErrFenced)
		}
		to, ok := policy.Transition(cur.State, f.On)
		if !ok {
			return policy.Errorf(policy.CodeConflict, "note %d is %s: %s is not allowed there", id, cur.State, f.On)
		}
		n, err = moveNote(ctx, tx, cur, to, now, `remote_id = COALESCE(?, remote_id), created_at = COALESCE(?, created_at),
			last_error_code = ?, last_error = ?, lease_until = NULL`, remote, created, nullStr(string(f.ErrCode)), nullStr(f.Err))
		if err != nil {
			return err
		}
		if f.Item != nil {
			if err := upsertItem(ctx, tx, *f.Item); err != nil {
				return err
			}
		}
		if err := insertAttempts(ctx, tx, nil, n.ItemID, "note", f.Attempts); err != nil {
			return err
		}
		return audit(ctx, tx, now, n.Author, n.ItemID, 0, f.Event, f.Err)
	})
	return n, err
}

// PendingNotes are the notes a flush must send, oldest first.
func (db *DB) PendingNotes(ctx context.Context) ([]NoteRow, error) {
	return queryNotes(ctx, db.db, `state IN `+leasableSQL+` AND (lease_until IS NULL OR lease_until < ?) ORDER BY id`, ms(db.now()))
}

// OpenNotes are the notes written here not done yet (queued, sending,
// unknown), oldest first: they belong in the outbox beside the actions.
func (db *DB) OpenNotes(ctx context.Context) ([]NoteRow, error) {
	return queryNotes(ctx, db.db, `state IN `+openSQL+` AND idempotency_key IS NOT NULL ORDER BY id`)
}

// CancelNote withdraws a note that was never sent, as the action machine
// allows (policy.EventCancel: only from queued). The notes table has no
// cancelled state: a withdrawn note never reached anyone, so its row goes,
// and the audit keeps what it said.
func (db *DB) CancelNote(ctx context.Context, id int64, reviewer string) (NoteRow, error) {
	var n NoteRow
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		cur, err := getNote(ctx, tx, id)
		if err != nil {
			return err
		}
		n = cur
		if _, ok := policy.Transition(cur.State, policy.EventCancel); !ok || cur.Key == "" {
			return policy.Errorf(policy.CodeConflict, "note %d is %s; %s", id, cur.State, whyNotCancel(cur.State))
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM notes WHERE id = ? AND state = ? AND sends = ?`, cur.ID, string(cur.State), cur.Sends)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return policy.Errorf(policy.CodeConflict, "note %d changed meanwhile; see 'reviewer outbox'", id)
		}
		n.State = policy.ActionCancelled
		return audit(ctx, tx, now, reviewer, cur.ItemID, 0, "note cancelled", cur.Text)
	})
	return n, err
}

// ItemNotes lists an item's notes, oldest first: the service's and the
// ones still on their way.
func (db *DB) ItemNotes(ctx context.Context, itemID string) ([]NoteRow, error) {
	return queryNotes(ctx, db.db, `item_id = ? ORDER BY created_at, id`, itemID)
}

// NoteCounts is how many notes each item has (failed ones left out).
func (db *DB) NoteCounts(ctx context.Context) (map[string]int, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT item_id, COUNT(*) FROM notes WHERE state <> 'failed' GROUP BY item_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// NextCandidates lists the items that need a reviewer and that nobody but
// me holds at now, oldest in their status first (items.since: the
// service's status_since, or the answer in which the cache saw the status).
func (db *DB) NextCandidates(ctx context.Context, me string, now time.Time, limit int) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT i.id FROM items i`+newestAction+`
		WHERE `+needsActionSQL+`
		  AND (i.claim_reviewer IS NULL OR i.claim_reviewer = ? OR i.claim_expires_at <= ?)
		ORDER BY i.since, i.id LIMIT ?`, me, ms(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// AllNotes returns every note not failed, by item, oldest first (export).
func (db *DB) AllNotes(ctx context.Context) (map[string][]NoteRow, error) {
	ns, err := queryNotes(ctx, db.db, `state <> 'failed' ORDER BY item_id, created_at, id`)
	if err != nil {
		return nil, err
	}
	out := map[string][]NoteRow{}
	for _, n := range ns {
		out[n.ItemID] = append(out[n.ItemID], n)
	}
	return out, nil
}

// keyFullSyncDue marks that the next sync must fetch every batch, not only
// the changed ones; its value says why.
const keyFullSyncDue = "full_sync_due"

// FullSyncDue says why the next sync must be a full one, "" when it need
// not: items that a field the service now fills (the revision) left
// empty, after a migration or the service's move from contract 1.0 to 1.1.
func (db *DB) FullSyncDue(ctx context.Context) (string, error) {
	return getString(ctx, db.db, keyFullSyncDue)
}

// MarkFullSyncIfUnrevised marks the next sync as a full one when the cache
// holds an item without a revision; why is kept as the reason.
func (db *DB) MarkFullSyncIfUnrevised(ctx context.Context, why string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sync_state(key, value) SELECT ?, ?
			WHERE EXISTS (SELECT 1 FROM items WHERE revision = 0)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, keyFullSyncDue, why)
		return err
	})
}

// FullSyncDone clears the mark after a full sync that began under it; a
// mark set again meanwhile (another reason) stays.
func (db *DB) FullSyncDone(ctx context.Context, why string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sync_state WHERE key = ? AND value = ?`, keyFullSyncDue, why)
		return err
	})
}
