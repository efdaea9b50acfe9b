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

// Period is how long the cache keeps a batch nobody touched.
func (s *RetentionService) Period() time.Duration {
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
	// KeptDocuments are the documents kept for offline review that went
	// (or would go, in a dry run): past their retention, or of a batch
	// that no longer needs the reviewer (kept.go).
	KeptDocuments PurgeReport
}

// Items is how many items the removed batches held.
func (p Purged) Items() int {
	n := 0
	for _, b := range p.Batches {
		n += b.Items
	}
	return n
}

// Purge applies the cache's retention now: the batches nobody touched for
// olderThan that nothing holds (removed with their items' history, one
// audit line each), the kept files of failed replacements past their own
// retention, and the documents kept for offline review older than
// olderThan or of a batch that no longer needs the reviewer. A negative
// olderThan applies each one's own setting (REVIEWER_RETENTION,
// REVIEWER_KEPT_DOCUMENT_RETENTION); zero removes every kept document and
// every batch nothing holds. A dry run changes nothing and says what would go.
func (s *RetentionService) Purge(ctx context.Context, olderThan time.Duration, dryRun bool) (Purged, error) {
	batchAge, keptAge := olderThan, olderThan
	if olderThan < 0 {
		batchAge, keptAge = s.Period(), s.keptRetention()
	}
	now := s.now()
	if dryRun {
		b, err := s.db.Retention.Forgettable(ctx, now, batchAge)
		if err != nil {
			return Purged{Batches: b}, err
		}
		due, err := s.keptDue(ctx, now, keptAge)
		rep := PurgeReport{Removed: due}
		for _, d := range due {
			rep.Bytes += d.Bytes
		}
		return Purged{Batches: b, KeptDocuments: rep}, err
	}
	// The kept documents first: a batch removed below leaves its kept
	// copies without an item, which they would then outlive until the next run.
	kept, err := s.purgeKept(ctx, now, keptAge)
	if err != nil {
		return Purged{KeptDocuments: kept}, err
	}
	b, err := s.db.Retention.Forget(ctx, now, batchAge, s.who())
	if err != nil {
		return Purged{Batches: b, KeptDocuments: kept}, err
	}
	n, err := s.db.Files.PurgeKeptFiles(ctx, now.Add(-s.keptFileRetention()))
	return Purged{Batches: b, KeptFiles: n, KeptDocuments: kept}, err
}
