package store

import (
	"context"
	"database/sql"
	"sync"
)

// watcher holds the one connection that reads PRAGMA data_version: the
// value is per connection, and changes when another connection (of this
// process or another) commits.
type watcher struct {
	mu   sync.Mutex
	conn *sql.Conn
}

var watchers sync.Map // *DB -> *watcher

// DataVersion returns a number that changes whenever the cache was changed
// through another connection, another process (`reviewer flush` in a
// terminal) included. The window polls it to redraw what changed.
func (db *DB) DataVersion(ctx context.Context) (int64, error) {
	w, _ := watchers.LoadOrStore(db, &watcher{})
	wt := w.(*watcher)
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if wt.conn == nil {
		c, err := db.db.Conn(ctx)
		if err != nil {
			return 0, err
		}
		wt.conn = c
	}
	var v int64
	if err := wt.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		wt.conn.Close()
		wt.conn = nil
		return 0, err
	}
	return v, nil
}

func (db *DB) closeWatcher() {
	w, ok := watchers.LoadAndDelete(db)
	if !ok {
		return
	}
	wt := w.(*watcher)
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if wt.conn != nil {
		wt.conn.Close()
		wt.conn = nil
	}
}
