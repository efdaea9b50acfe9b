package ui

import (
	"context"
	"time"
)

// The window applies the cache's retention (review.RetentionService.Purge: batches
// nobody touched for REVIEWER_RETENTION, kept files past theirs) once a
// day while it is open: a first time a little after it starts, so that it
// does not compete with the first read and sync, then every day. A run
// that failed (the cache busy with another process) is tried again sooner.

// Times of the daily retention run.
const (
	purgeFirst = 2 * time.Minute
	purgeEvery = 24 * time.Hour
	purgeRetry = time.Hour
)

// runDaily runs job after first, then every every (after retry when it
// failed), until ctx ends. after is the clock (time.After; a test's own).
// A run that outlasts its period is not doubled: the next wait starts when
// it ends.
func runDaily(ctx context.Context, after func(time.Duration) <-chan time.Time, first, every, retry time.Duration,
	job func(context.Context) error) {
	wait := first
	for {
		select {
		case <-ctx.Done():
			return
		case <-after(wait):
		}
		if ctx.Err() != nil {
			return
		}
		wait = every
		if err := job(ctx); err != nil {
			wait = retry
		}
	}
}
