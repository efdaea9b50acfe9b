package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/trustscreen/reviewer/store"
)

// Two processes that open a new cache at once (the window and a `reviewer
// flush` in a terminal, or two commands) both migrate it: neither may fail
// on a table the other just made. Each Open here is a connection pool of
// its own, as another process's would be.
func TestOpeningANewCacheAtOnceMigratesItOnce(t *testing.T) {
	for round := 0; round < 5; round++ {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("cache-%d.db", round))
		const n = 6
		var wg sync.WaitGroup
		errs := make([]error, n)
		dbs := make([]*store.DB, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				dbs[i], errs[i] = store.Open(path)
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, open %d of %d at once: %v", round, i+1, n, err)
			}
		}
		for _, db := range dbs {
			if _, _, err := db.Items.Counts(context.Background()); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
	}
}
