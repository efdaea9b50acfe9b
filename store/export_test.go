package store

import (
	"context"
	"time"
)

// Exec runs a statement (tests only: to prove what the schema refuses).
func (db *DB) Exec(ctx context.Context, q string) error {
	_, err := db.db.ExecContext(ctx, q)
	return err
}

// PageCacheKiB is the page cache of one of the pool's connections.
func (db *DB) PageCacheKiB(ctx context.Context) (int, error) {
	var n int
	err := db.db.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&n)
	return -n, err
}

// QueryRow reads one row of a query into dest (tests only).
func (db *DB) QueryRow(ctx context.Context, q string, dest ...any) error {
	return db.db.QueryRowContext(ctx, q).Scan(dest...)
}

// SetClock replaces the services' clock after Open (tests only: the
// product gives it once, in Config).
func (db *DB) SetClock(now func() time.Time) { db.now = now }
