package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Notes live in their own table with their own outbox (see migration 00004
// for why they are not actions); a note the service sent and one a
// reviewer wrote here are rows of the same table. Every write of a note's
// state follows policy's note machine (policy.NoteTransition).

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
func (s *NoteStore) CreateNote(ctx context.Context, n NoteRow) (NoteRow, error) {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := getItem(ctx, tx, n.ItemID); err != nil {
			return err
		}
		now := s.now()
		res, err := tx.ExecContext(ctx, `INSERT INTO notes(item_id, idempotency_key, author, text, state, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, n.ItemID, n.Key, n.Author, n.Text, string(policy.InitialNoteState), ms(now), ms(now))
		if err != nil {
			return err
		}
		n.ID, _ = res.LastInsertId()
		n.State, n.CreatedAt = policy.InitialNoteState, now
		return audit(ctx, tx, now, n.Author, n.ItemID, 0, "note written", n.Text)
	})
	return n, err
}

// LeaseNote takes a note for one send under a lease, as the note machine
// says (policy.EventLease, as LeaseAction for an action): ok is false when
// another sender holds the lease or the note is settled.
func (s *NoteStore) LeaseNote(ctx context.Context, id int64, lease time.Duration) (n NoteRow, ok bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		cur, err := getNote(ctx, tx, id)
		if err != nil {
			return err
		}
		n = cur
		to, allowed := policy.NoteTransition(cur.State, policy.EventLease)
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
	Attempts []policy.Attempt
	Event    string
}

// FinishNote records the outcome of a send in one transaction: the note's
// new state (policy.NoteTransition of its state and f.On), the service's
// note, an item a refusal carried, the evidence of every attempt and the
// audit entry. Only the holder of the newest lease may finish it: a sender
// whose lease ran out and was taken over gets ErrFenced (with the note as
// it is); of its outcome, as for an action, the evidence of its attempts
// and an audit entry are written, and nothing else.
func (s *NoteStore) FinishNote(ctx context.Context, id int64, f NoteFinish) (NoteRow, error) {
	var n NoteRow
	fenced := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		cur, err := getNote(ctx, tx, id)
		if err != nil {
			return err
		}
		if cur.Sends != f.Lease || cur.LeaseUntil.IsZero() {
			// Keep the evidence of what this sender did, and say so.
			fenced, n = true, cur
			if err := insertAttempts(ctx, tx, nil, cur.ItemID, "note", f.Attempts); err != nil {
				return err
			}
			return audit(ctx, tx, now, cur.Author, cur.ItemID, 0, "note: outcome of a stale send ignored",
				fmt.Sprintf("send %d met %s (%s) after its lease ran out; the note was taken over (send %d, %s)",
					f.Lease, f.On, f.Event, cur.Sends, cur.State))
		}
		var remote, created any
		if f.Remote != nil {
			remote, created = f.Remote.ID, ms(f.Remote.CreatedAt)
			// A sync may have brought this very note before its answer came.
			if _, err := tx.ExecContext(ctx, `DELETE FROM notes WHERE remote_id = ? AND idempotency_key IS NULL`, f.Remote.ID); err != nil {
				return err
			}
		}
		to, ok := policy.NoteTransition(cur.State, f.On)
		if !ok {
			return policy.Errorf(policy.CodeConflict, "note %d is %s: %s is not allowed there", id, cur.State, f.On)
		}
		n, err = moveNote(ctx, tx, cur, to, now, `remote_id = COALESCE(?, remote_id), created_at = COALESCE(?, created_at),
			last_error_code = ?, last_error = ?, lease_until = NULL`, remote, created, nullStr(string(f.ErrCode)), nullStr(f.Err))
		if err != nil {
			return err
		}
		if f.Item != nil {
			if err := upsertItem(ctx, tx, *f.Item, now); err != nil {
				return err
			}
		}
		if err := insertAttempts(ctx, tx, nil, n.ItemID, "note", f.Attempts); err != nil {
			return err
		}
		return audit(ctx, tx, now, n.Author, n.ItemID, 0, f.Event, f.Err)
	})
	if err == nil && fenced {
		err = fmt.Errorf("note %d (send %d): %w", id, f.Lease, ErrFenced)
	}
	return n, err
}

// The sets of note states the store's SQL needs, from the note machine.
// They are literals in the SQL so that SQLite can use notes_pending, whose
// WHERE clause, like the CHECK on notes.state, TestSchemaFollowsTheNoteMachine
// holds to the same sets.
var (
	noteLeasableSQL = sqlStates(policy.NoteStatesAllowing(policy.EventLease))
	noteOpenSQL     = sqlStates(policy.OpenNoteStates())
	noteCountsSQL   = sqlStates(noteStatesWhere(policy.NoteCounts))
)

func noteStatesWhere(pred func(policy.ActionState) bool) []policy.ActionState {
	var out []policy.ActionState
	for _, s := range policy.NoteStates() {
		if pred(s) {
			out = append(out, s)
		}
	}
	return out
}

// PendingNotes are the notes a flush must send, oldest first.
func (s *NoteStore) PendingNotes(ctx context.Context) ([]NoteRow, error) {
	return queryNotes(ctx, s.db, `state IN `+noteLeasableSQL+` AND (lease_until IS NULL OR lease_until < ?) ORDER BY id`, ms(s.now()))
}

// OpenNotes are the notes written here not done yet (queued, sending,
// unknown), oldest first: they belong in the outbox beside the actions.
func (s *NoteStore) OpenNotes(ctx context.Context) ([]NoteRow, error) {
	return queryNotes(ctx, s.db, `state IN `+noteOpenSQL+` AND idempotency_key IS NOT NULL ORDER BY id`)
}

// CancelNote withdraws a note that was never sent, as the note machine
// allows (policy.EventCancel: only from queued). A cancelled note is not
// kept (policy.NoteKept): it never reached anyone, so its row goes, and the
// audit keeps what it said.
func (s *NoteStore) CancelNote(ctx context.Context, id int64, reviewer string) (NoteRow, error) {
	var n NoteRow
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		cur, err := getNote(ctx, tx, id)
		if err != nil {
			return err
		}
		n = cur
		to, ok := policy.NoteTransition(cur.State, policy.EventCancel)
		if !ok || cur.Key == "" {
			return policy.Errorf(policy.CodeConflict, "note %d is %s; %s", id, cur.State, whyNotCancel(cur.State))
		}
		if policy.NoteKept(to) {
			// The table has no row for a withdrawn note; a machine that
			// kept one needs a migration first.
			return fmt.Errorf("note %d: the notes table cannot keep a %s note", id, to)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM notes WHERE id = ? AND state = ? AND sends = ?`, cur.ID, string(cur.State), cur.Sends)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return policy.Errorf(policy.CodeConflict, "note %d changed meanwhile; see 'reviewer outbox'", id)
		}
		n.State = to
		return audit(ctx, tx, now, reviewer, cur.ItemID, 0, "note cancelled", cur.Text)
	})
	return n, err
}

// ItemNotes lists an item's notes, oldest first: the service's and the
// ones still on their way.
func (s *NoteStore) ItemNotes(ctx context.Context, itemID string) ([]NoteRow, error) {
	return queryNotes(ctx, s.db, `item_id = ? ORDER BY created_at, id`, itemID)
}

// NoteCounts is how many notes each item has: those policy.NoteCounts
// (failed ones left out).
func (s *NoteStore) NoteCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT item_id, COUNT(*) FROM notes WHERE state IN `+noteCountsSQL+` GROUP BY item_id`)
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

// AllNotes returns every note that policy.NoteCounts (not failed), by
// item, oldest first (export).
func (s *NoteStore) AllNotes(ctx context.Context) (map[string][]NoteRow, error) {
	ns, err := queryNotes(ctx, s.db, `state IN `+noteCountsSQL+` ORDER BY item_id, created_at, id`)
	if err != nil {
		return nil, err
	}
	out := map[string][]NoteRow{}
	for _, n := range ns {
		out[n.ItemID] = append(out[n.ItemID], n)
	}
	return out, nil
}
