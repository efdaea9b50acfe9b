package review_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// A service whose clock says 2099 for one change must not poison the sync
// position: the next sync still brings a real change made after it, and
// the item dated 2099 is stored as invalid, never as checked.
func TestSyncPositionNeverMovesIntoTheFuture(t *testing.T) {
	var future atomic.Bool
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: token, Now: func() time.Time {
		if future.Load() {
			return time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		return time.Now()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	db, api, svc := newService(t, srv.URL(), filepath.Join(t.TempDir(), "cache.db"))
	t.Cleanup(func() { api.Close(); db.Close() })
	ctx := context.Background()
	if _, err := svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}

	bad := srv.FindCode("SOURCE_UNREACHABLE")
	badItem, _ := srv.Item(bad)
	scored := func(it *policy.RawItem) {
		s, r := 12.0, "forward"
		it.Status, it.RiskScore, it.Recommendation, it.ErrorCode, it.ErrorMessage = "scored", &s, &r, nil, nil
	}
	future.Store(true)
	srv.Touch(bad, scored)
	future.Store(false)
	p, err := svc.Sync.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Ahead != 1 || p.Invalid < 1 {
		t.Fatalf("a batch dated 2099 is not reported: %+v", p)
	}
	if pos, _ := db.Sync.SyncPosition(ctx); policy.AheadOf(pos, time.Now()) {
		t.Fatalf("the sync position moved to %v", pos)
	}
	got, _ := db.Items.Item(ctx, bad)
	if got.Status != policy.StatusInvalid || got.Checked() || got.RiskScore != nil || !strings.Contains(got.Problem, "future") {
		t.Fatalf("the item dated 2099 is stored as %+v", got.Item)
	}

	// A real change now, in another batch, comes down.
	good, ok := srv.Find(func(it policy.RawItem) bool {
		return it.BatchID != badItem.BatchID && it.Status == "error"
	})
	if !ok {
		t.Fatal("no error item in another batch")
	}
	srv.Touch(good, scored)
	if _, err := svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if it, _ := db.Items.Item(ctx, good); it.Status != policy.StatusScored || it.RiskScore == nil || *it.RiskScore != 12 {
		t.Fatalf("the change after the 2099 batch was missed: %+v", it.Item)
	}
	// And when the service's clock is right again, the item dated 2099
	// takes its real next change (its batch still says 2099 at the
	// service, so it comes with every sync).
	srv.Touch(bad, scored)
	if _, err := svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if it, _ := db.Items.Item(ctx, bad); it.Status != policy.StatusScored {
		t.Fatalf("the item once dated 2099 did not take its real change: %+v", it.Item)
	}
}
