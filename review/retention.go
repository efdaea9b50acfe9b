package review

import (
	"context"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Retention: the cache forgets a batch nobody touched for a period
// (REVIEWER_RETENTION, policy.DefaultRetention) once nothing holds it
// (policy.MayForget). `reviewer purge` runs it; the window runs it once a
// day.

// SetRetention sets how long the cache keeps a batch nobody touched
// (REVIEWER_RETENTION; 0: policy.DefaultRetention).
func (s *Service) SetRetention(d time.Duration) {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	s.files.batchRetention = d
}

// Retention is how long the cache keeps a batch nobody touched.
func (s *Service) Retention() time.Duration {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	if s.files.batchRetention <= 0 {
		return policy.DefaultRetention
	}
	return s.files.batchRetention
}

// Purged is what one run of the retention removed (or, in a dry run,
// would remove).
type Purged struct {
	Batches []store.ForgottenBatch
	// KeptFiles is how many files of failed replacements their own
	// retention (REVIEWER_KEPT_FILE_RETENTION) deleted (not in a dry run).
	KeptFiles int
	// Kept documents (encrypted offline copies) will have their retention
	// applied here, with their count, when the console keeps them.
}

// Items is how many items the removed batches held.
func (p Purged) Items() int {
	n := 0
	for _, b := range p.Batches {
		n += b.Items
	}
	return n
}

// Purge applies the retention: the batches untouched for olderThan (0: the
// configured Retention) that nothing holds are removed with their items'
// actions, attempts and history (one audit line each), and the files of
// failed replacements past their own retention are deleted. With dryRun
// nothing changes: it says what would go.
func (s *Service) Purge(ctx context.Context, olderThan time.Duration, dryRun bool) (Purged, error) {
	if olderThan <= 0 {
		olderThan = s.Retention()
	}
	now := s.now()
	if dryRun {
		b, err := s.db.Forgettable(ctx, now, olderThan)
		return Purged{Batches: b}, err
	}
	b, err := s.db.Forget(ctx, now, olderThan, s.who())
	if err != nil {
		return Purged{Batches: b}, err
	}
	n, err := s.db.PurgeKeptFiles(ctx, now.Add(-s.keptFileRetention()))
	return Purged{Batches: b, KeptFiles: n}, err
}
