package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FileDigest is what the cache keeps of a replacement's file: its hash and
// size always, its bytes only while the action may still send them.
type FileDigest struct {
	SHA256 string // hex
	Size   int64
	Held   bool // the bytes are still in the cache
}

// ActionFileDigest returns what the cache keeps of an action's file.
func (db *DB) ActionFileDigest(ctx context.Context, actionID int64) (FileDigest, error) {
	var d FileDigest
	var sum sql.NullString
	var size sql.NullInt64
	err := db.db.QueryRowContext(ctx, `SELECT sha256, size_bytes, data IS NOT NULL FROM action_files WHERE action_id = ?`,
		actionID).Scan(&sum, &size, &d.Held)
	if errors.Is(err, sql.ErrNoRows) {
		return d, notFound("file for action", fmt.Sprint(actionID))
	}
	d.SHA256, d.Size = sum.String, size.Int64
	return d, err
}
