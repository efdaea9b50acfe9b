package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Salvaged is what Salvage could read of a cache's outbox.
type Salvaged struct {
	Actions []Action
	Notes   []NoteRow
	// Problems says what could not be read (none: all of it was).
	Problems []string
}

// Salvage reads the unsent actions (queued, sending, unknown) and the notes
// not yet sent of the cache at path, with their Idempotency-Keys, from a
// cache that Open refuses: a damaged one, or one of another schema. It
// opens the file read-only and changes nothing in it; it runs no migration
// and asks no index (an index may be what is damaged): it walks each table
// from its first row, and if a damaged page stops it, from its last row
// back, so that the rows on either side of the damage are read.
func Salvage(path string) (Salvaged, error) {
	var out Salvaged
	if _, err := os.Stat(path); err != nil {
		return out, err
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", "10000")
	sdb, err := sql.Open(driverName, "file:"+path+"?"+q.Encode())
	if err != nil {
		return out, err
	}
	defer func() { sdb.Close() }()
	ctx := context.Background()
	if err := sdb.PingContext(ctx); err != nil || cannotShareQuery(ctx, sdb) {
		// A read-only folder without a -shm: read the file as it is.
		sdb.Close()
		q.Set("immutable", "1")
		if sdb, err = sql.Open(driverName, "file:"+path+"?"+q.Encode()); err != nil {
			return out, err
		}
	}
	var actionProblems, noteProblems []string
	out.Actions, actionProblems = salvageRows(ctx, sdb, "actions", strings.Replace(strings.Replace(actionColumns, notBeforeColumn, "0", 1), decisionColumns, noDecisionColumns, 1), `state IN `+openSQL, scanAction)
	out.Notes, noteProblems = salvageRows(ctx, sdb, "notes", noteColumns, `state IN `+openSQL+` AND idempotency_key IS NOT NULL`, scanNote)
	out.Problems = append(actionProblems, noteProblems...)
	return out, nil
}

func cannotShareQuery(ctx context.Context, sdb *sql.DB) bool {
	var v int64
	return cannotShare(sdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v))
}

// salvageRows reads the rows of table that match where, by rowid, without
// an index: forwards until the end or a damaged page, then backwards from
// the end down to the last row read.
func salvageRows[T any](ctx context.Context, sdb *sql.DB, table, columns, where string, scan func(scanner) (T, error)) ([]T, []string) {
	var out []T
	var problems []string
	var last int64 = -1 << 63
	walk := func(query string, args ...any) error {
		rows, err := sdb.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			dest := &idScanner{rows: rows, id: &id}
			v, err := scan(dest)
			if err != nil {
				return err
			}
			out = append(out, v)
			last = max(last, id)
		}
		return rows.Err()
	}
	base := "SELECT " + columns + " FROM " + table + " NOT INDEXED WHERE (" + where + ")"
	err := walk(base + " ORDER BY id")
	if err == nil {
		return out, nil
	}
	problems = append(problems, fmt.Sprintf("%s: %v", table, err))
	forward := len(out)
	if berr := walk(base+" AND id > ? ORDER BY id DESC", last); berr != nil && berr.Error() != err.Error() {
		problems = append(problems, fmt.Sprintf("%s, read from its end: %v", table, berr))
	}
	// The backward walk appended newest first: put them in order.
	tail := out[forward:]
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	return out, problems
}

// idScanner scans a row whose first column is its id, and keeps the id.
type idScanner struct {
	rows *sql.Rows
	id   *int64
}

func (s *idScanner) Scan(dest ...any) error {
	if err := s.rows.Scan(dest...); err != nil {
		return err
	}
	if len(dest) > 0 {
		if p, ok := dest[0].(*int64); ok {
			*s.id = *p
		}
	}
	return nil
}
