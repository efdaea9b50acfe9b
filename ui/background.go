package ui

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/review"
)

// Background sync: while the window is open it syncs by itself every
// Options.SyncEvery (REVIEWER_SYNC_EVERY, 5 minutes by default), give or
// take a tenth of it drawn anew after each sync, so that a team's consoles
// opened at nine do not all ask at the same second. The interval counts
// from the end of the last sync, whoever started it (F5, the start, the
// schedule), so there is never a second sync while one runs. It waits
// while the breaker is open or a Retry-After runs, and goes on by itself
// when they end; the strip says when the next one is due (nextSync, a pure
// function the strip and the loop share).

// DefaultSyncEvery is the background sync's interval when none is set.
const DefaultSyncEvery = 5 * time.Minute

// syncJitterShare is the jitter: the interval, plus or minus this share of
// it (5 minutes: 4 min 30 s to 5 min 30 s).
const syncJitterShare = 10 // percent

// Clock is the time the background sync and the notifications run on:
// the system's, or a test's.
type Clock interface {
	Now() time.Time
	// After is a channel that receives once d has passed, and its stop.
	After(d time.Duration) (<-chan time.Time, func())
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
func (systemClock) After(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// Why the background sync waits longer than its interval.
const (
	syncPausedCircuit   = "the screening API stopped answering"
	syncPausedRateLimit = "the screening API asked to wait"
)

// nextSync is when the next background sync is due, given the interval
// and its jitter, the end of the last sync (or the window's start), and the
// connection; paused says why it waits past its interval ("": it does
// not). An open breaker holds it until its retry time; a Retry-After until
// its end (both a little after, probeLate, so that the wait is over on
// both clocks).
func nextSync(every, jitter time.Duration, last time.Time, st review.Connectivity) (due time.Time, paused string) {
	due = last.Add(every + jitter)
	if st.Conn.State == review.ConnCircuitOpen && !st.Conn.RetryAt.IsZero() {
		if at := st.Conn.RetryAt.Add(probeLate); at.After(due) {
			due, paused = at, syncPausedCircuit
		}
	}
	if !st.RateLimitedUntil.IsZero() {
		if at := st.RateLimitedUntil.Add(probeLate); at.After(due) {
			due, paused = at, syncPausedRateLimit
		}
	}
	return due, paused
}

// syncJitter draws the jitter of the next interval: uniform in plus or
// minus syncJitterShare percent of every; n(k) draws in [0, k).
func syncJitter(every time.Duration, n func(int64) int64) time.Duration {
	span := int64(every) * syncJitterShare / 100
	if span <= 0 {
		return 0
	}
	return time.Duration(n(2*span+1) - span)
}

// schedule is the background sync's state, shared by the UI goroutine
// (a sync starts and ends) and the loop.
type schedule struct {
	mu      sync.Mutex
	every   time.Duration
	jitter  time.Duration
	last    time.Time // the end of the last sync, or the window's start
	running bool
	draw    func(int64) int64
	kick    chan struct{} // a sync ended: the loop plans again
}

func newSchedule(every time.Duration, start time.Time) *schedule {
	if every <= 0 {
		every = DefaultSyncEvery
	}
	s := &schedule{every: every, last: start, draw: rand.Int64N, kick: make(chan struct{}, 1)}
	s.jitter = syncJitter(every, s.draw)
	return s
}

// began: a sync runs (any: F5, the start, the schedule's).
func (s *schedule) began() {
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
}

// ended: the sync ended at now; the next interval counts from there.
func (s *schedule) ended(now time.Time) {
	s.mu.Lock()
	s.running, s.last = false, now
	s.jitter = syncJitter(s.every, s.draw)
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// next is when the next sync is due and why it waits (nextSync); running
// reports a sync under way (nothing is due until it ends).
func (s *schedule) next(st review.Connectivity) (due time.Time, paused string, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	due, paused = nextSync(s.every, s.jitter, s.last, st)
	return due, paused, s.running
}

// syncWords is what the strip says of the next background sync: "next
// sync 14:35", "sync paused until 14:40: the screening API asked to wait";
// nothing while one runs.
func (s *schedule) syncWords(st review.Connectivity) string {
	due, paused, running := s.next(st)
	switch {
	case running:
		return ""
	case paused != "":
		return "sync paused until " + clock(due) + ": " + paused
	}
	return "next sync " + clock(due)
}

// syncOnSchedule runs the background sync until ctx ends: it sleeps until
// the next sync is due, looks again (the connection may have changed:
// a breaker that opened meanwhile pushes it back), and starts the sync on
// the UI goroutine as F5 would. While a sync runs it waits for its end.
func (c *Console) syncOnSchedule(ctx context.Context) {
	clk := c.clock
	for {
		st, err := c.wf.Sync.Connectivity(ctx)
		if err != nil && ctx.Err() != nil {
			return
		}
		due, _, running := c.sched.next(st)
		if running {
			select {
			case <-ctx.Done():
				return
			case <-c.sched.kick:
			}
			continue
		}
		if wait := due.Sub(clk.Now()); wait > 0 {
			fired, stop := clk.After(wait)
			select {
			case <-ctx.Done():
				stop()
				return
			case <-c.sched.kick: // a sync ended meanwhile: plan again from its end
				stop()
			case <-fired:
			}
			continue // look again: due may have moved
		}
		c.onUI(true, c.onSync)
		// onSync marked the schedule running, or a sync already ran
		// (which did): either way the loop waits for its end above.
		c.sched.mu.Lock()
		started := c.sched.running
		c.sched.mu.Unlock()
		if !started {
			// No sync started (the console was closed under it): do not
			// spin.
			select {
			case <-ctx.Done():
				return
			case <-c.sched.kick:
			}
		}
	}
}
