package store

import "context"

// Exec runs a statement (tests only: to prove what the schema refuses).
func (db *DB) Exec(ctx context.Context, q string) error {
	_, err := db.db.ExecContext(ctx, q)
	return err
}
