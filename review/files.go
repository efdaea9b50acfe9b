package review

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/internal/document"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// The file of a replacement that failed stays in the cache: the service
// ran nothing, and "upload it again" must not need the customer to send it
// anew. It goes when the reviewer uploads it again or discards it, or when
// the retention runs out (every flush applies it).

type fileSettings struct {
	mu        sync.Mutex
	retention time.Duration // 0: policy.DefaultKeptFileRetention
	// batchRetention is how long a batch nobody touched stays (0:
	// policy.DefaultRetention; retention.go).
	batchRetention time.Duration
	// docLimits bound the check of an upload as the viewer bounds a
	// document (zero: document.DefaultLimits).
	docLimits document.Limits
}

func (f *fileSettings) documentLimits() document.Limits {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.docLimits
}

func (s *core) keptFileRetention() time.Duration {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	if s.files.retention <= 0 {
		return policy.DefaultKeptFileRetention
	}
	return s.files.retention
}

// KeptFile is the newest kept file of an item's failed replacements.
func (s *ActionService) KeptFile(ctx context.Context, itemID string) (store.KeptFile, error) {
	return s.db.Files.KeptFile(ctx, itemID)
}

// ReplaceAgain uploads again the file of the item's newest failed
// replacement: a new intent with a new key, the reviewer's own choice. The
// new action holds its own copy, so the failed one's bytes go.
func (s *ActionService) ReplaceAgain(ctx context.Context, itemID string, opt ReplaceOptions) (Result, error) {
	k, err := s.db.Files.KeptFile(ctx, itemID)
	if err != nil {
		return Result{}, policy.Errorf(policy.CodeConflict,
			"item %s has no kept file of a failed replacement: upload the customer's file with 'reviewer replace %s FILE'", itemID, itemID)
	}
	res, err := s.Replace(ctx, itemID, k.FileName, k.Data, opt)
	if err != nil {
		return res, err
	}
	if derr := s.db.Files.DiscardFile(ctx, k.ActionID, s.who(), fmt.Sprintf("uploaded again as action %d", res.Action.ID)); derr != nil {
		return res, derr
	}
	return res, nil
}

// DiscardKeptFile deletes the kept file of the item's newest failed
// replacement (its hash and size stay for the audit).
func (s *ActionService) DiscardKeptFile(ctx context.Context, itemID string) (store.KeptFile, error) {
	k, err := s.db.Files.KeptFile(ctx, itemID)
	if err != nil {
		return k, policy.Errorf(policy.CodeConflict, "item %s has no kept file of a failed replacement", itemID)
	}
	return k, s.db.Files.DiscardFile(ctx, k.ActionID, s.who(), "discarded by the reviewer")
}

// purgeKeptFiles applies the retention of kept files.
func (s *core) purgeKeptFiles(ctx context.Context) error {
	_, err := s.db.Files.PurgeKeptFiles(ctx, s.now().Add(-s.keptFileRetention()))
	return err
}
