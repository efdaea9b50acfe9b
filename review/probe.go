package review

import (
	"context"
	"time"

	"github.com/trustscreen/reviewer/client"
)

// probeTimeout caps one probe: it asks for one page of nothing.
const probeTimeout = 10 * time.Second

// Probe asks the API, with one cheap call (the batches changed from now
// on, at most one), whether it answers, and records the connection state.
// It makes no call while a rate-limit wait (Retry-After) is running; it
// reports whether it called. The window probes while idle, so that its
// connection strip follows the API rather than the reviewer's last
// action. The probe goes past the circuit breaker (client.Probe): while
// the breaker pauses the calls that do work, the probe is what sees the
// API come back, and its answer ends the pause.
func (s *SyncService) Probe(ctx context.Context) (called bool, err error) {
	now := s.now()
	if until, err := s.db.Sync.RateLimitedUntil(ctx); err != nil {
		return false, err
	} else if now.Before(until) {
		return false, nil
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, callErr := s.api.Probe(pctx)
	if ctx.Err() != nil {
		return true, ctx.Err() // the window closed: nothing learnt
	}
	if e, ok := client.AsError(callErr); ok && e.Class == client.ClassUnknown {
		// The probe itself went unanswered: the API is not answering.
		s.setConn(ConnOffline, e.Code)
		return true, nil
	}
	s.observe(callErr)
	return true, nil
}

// CacheVersion changes whenever the cache was changed through another
// connection, another process included (PRAGMA data_version).
func (s *SyncService) CacheVersion(ctx context.Context) (int64, error) {
	return s.db.Sync.DataVersion(ctx)
}

// ReviewerFromService reports whether the reviewer's name is the one the
// service gave (GET /v1/me, now or when last reached) rather than this
// console's --reviewer, REVIEWER_NAME or system user. No call is made.
func (s *TeamService) ReviewerFromService() bool {
	s.team.mu.Lock()
	name := s.team.identity.Reviewer
	s.team.mu.Unlock()
	return name != "" && name == s.who()
}
