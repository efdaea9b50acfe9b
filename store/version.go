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

var watchers sync.Map // *core -> *watcher

// DataVersion returns a number that changes whenever the cache was changed
// through another connection, another process (`reviewer flush` in a
// terminal) included. The window polls it to redraw what changed.
func (s *SyncStore) DataVersion(ctx context.Context) (int64, error) {
	w, _ := watchers.LoadOrStore(s.core, &watcher{})
	wt := w.(*watcher)
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if wt.conn == nil {
		c, err := s.db.Conn(ctx)
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

func (c *core) closeWatcher() {
	w, ok := watchers.LoadAndDelete(c)
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
