package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// FileDigest is what the cache keeps of a replacement's file: its hash and
// size always, its bytes only while the action may still send them.
type FileDigest struct {
	SHA256 string // hex
	Size   int64
	Held   bool // the bytes are still in the cache
}

// ActionFileDigest returns what the cache keeps of an action's file.
func (s *FileStore) ActionFileDigest(ctx context.Context, actionID int64) (FileDigest, error) {
	var d FileDigest
	var sum sql.NullString
	var size sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT sha256, size_bytes, data IS NOT NULL FROM action_files WHERE action_id = ?`,
		actionID).Scan(&sum, &size, &d.Held)
	if errors.Is(err, sql.ErrNoRows) {
		return d, notFound("file for action", fmt.Sprint(actionID))
	}
	d.SHA256, d.Size = sum.String, size.Int64
	return d, err
}

// KeptFile is the file of a replacement that failed (the service ran
// nothing), kept so that the reviewer can upload it again without asking
// the customer anew, until she discards it or the retention removes it.
type KeptFile struct {
	ActionID int64
	ItemID   string
	FileName string
	Data     []byte
}

// keptSQL lists the states of an action (a) whose replacement keeps its
// file for another try: those that ended without dropping it
// (policy.DropsFile), that is failed.
var keptSQL = sqlStates(statesWhere(func(s policy.ActionState) bool { return !s.Open() && !s.DropsFile() }))

// KeptFile returns the newest kept file of an item's failed replacements.
func (s *FileStore) KeptFile(ctx context.Context, itemID string) (KeptFile, error) {
	k := KeptFile{ItemID: itemID}
	err := s.db.QueryRowContext(ctx, `SELECT a.id, COALESCE(a.file_name, ''), f.data
		FROM actions a JOIN action_files f ON f.action_id = a.id
		WHERE a.item_id = ? AND a.state IN `+keptSQL+` AND f.data IS NOT NULL ORDER BY a.id DESC LIMIT 1`, itemID).
		Scan(&k.ActionID, &k.FileName, &k.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return k, notFound("kept file of a failed replacement of item", itemID)
	}
	return k, err
}

// DiscardFile deletes the bytes a failed replacement kept (its hash and
// size stay), and audits why. It is a no-op for a file already gone.
func (s *FileStore) DiscardFile(ctx context.Context, actionID int64, reviewer, why string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		return discardFiles(ctx, tx, s.now(), reviewer, why, `a.id = ?`, actionID)
	})
}

// PurgeKeptFiles deletes the bytes of the failed replacements that failed
// before the time given (the retention), and says how many.
func (s *FileStore) PurgeKeptFiles(ctx context.Context, before time.Time) (int, error) {
	var n int
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM actions a JOIN action_files f ON f.action_id = a.id
			WHERE a.state IN `+keptSQL+` AND f.data IS NOT NULL AND a.updated_at < ?`, ms(before)).Scan(&n); err != nil || n == 0 {
			return err
		}
		return discardFiles(ctx, tx, s.now(), "", "the retention of uploaded files ran out",
			`a.state IN `+keptSQL+` AND a.updated_at < ?`, ms(before))
	})
	return n, err
}

func discardFiles(ctx context.Context, tx *sql.Tx, now time.Time, reviewer, why, where string, args ...any) error {
	sel := `SELECT a.id FROM actions a JOIN action_files f ON f.action_id = a.id
		WHERE f.data IS NOT NULL AND a.state IN ` + keptSQL + ` AND ` + where
	if _, err := tx.ExecContext(ctx, `INSERT INTO audit(at, reviewer, item_id, action_id, event, detail)
		SELECT ?, COALESCE(NULLIF(?, ''), a.reviewer), a.item_id, a.id, 'file deleted',
		       'the uploaded file (' || f.size_bytes || ' bytes, sha256 ' || f.sha256 || ') was deleted: ' || ?
		FROM actions a JOIN action_files f ON f.action_id = a.id WHERE a.id IN (`+sel+`)`,
		append([]any{ms(now), reviewer, why}, args...)...); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE action_files SET data = NULL, purged_at = ? WHERE action_id IN (`+sel+`)`,
		append([]any{ms(now)}, args...)...)
	return err
}

// KeptFileName is the name of the newest kept file of an item's failed
// replacements, without reading its bytes; ok is false when none is kept.
func (s *FileStore) KeptFileName(ctx context.Context, itemID string) (name string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT COALESCE(a.file_name, '') FROM actions a JOIN action_files f ON f.action_id = a.id
		WHERE a.item_id = ? AND a.state IN `+keptSQL+` AND f.data IS NOT NULL ORDER BY a.id DESC LIMIT 1`, itemID).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return name, err == nil, err
}
