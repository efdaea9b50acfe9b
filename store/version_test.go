package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/store"
)

// A change made through another connection (here: a second process's
// handle on the same file) moves DataVersion; reading does not.
func TestDataVersionSeesAnotherProcessWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	a, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	v1, err := a.Sync.DataVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Sync.LastSync(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Sync.DataVersion(ctx); v != v1 {
		t.Fatalf("a read moved the version %d -> %d", v1, v)
	}
	if err := b.Sync.SetLastSync(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Sync.DataVersion(ctx); v == v1 {
		t.Fatal("another connection's commit did not move the version")
	}
}
