package ui

import (
	"context"
	"errors"
	"testing"
	"time"
)

// purgeClock hands each wait runDaily asks for to the test, which decides
// when it ends.
type purgeClock struct{ waits chan purgeWait }

type purgeWait struct {
	d    time.Duration
	fire chan time.Time
}

func (c *purgeClock) after(d time.Duration) <-chan time.Time {
	w := purgeWait{d: d, fire: make(chan time.Time, 1)}
	c.waits <- w
	return w.fire
}

// TestRetentionRunsOnceADay: the first run waits for the window's start to
// settle, then one run a day; a failed run is tried again within the
// hour; closing the window stops it, even mid-wait.
func TestRetentionRunsOnceADay(t *testing.T) {
	clock := &purgeClock{waits: make(chan purgeWait)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runs := make(chan struct{})
	results := make(chan error)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		runDaily(ctx, clock.after, purgeFirst, purgeEvery, purgeRetry, func(context.Context) error {
			runs <- struct{}{}
			return <-results
		})
	}()
	next := func(want time.Duration) purgeWait {
		t.Helper()
		select {
		case w := <-clock.waits:
			if w.d != want {
				t.Fatalf("waits %v, want %v", w.d, want)
			}
			return w
		case <-time.After(30 * time.Second):
			t.Fatalf("no wait of %v asked for", want)
		}
		return purgeWait{}
	}
	noRun := func() {
		t.Helper()
		select {
		case <-runs:
			t.Fatal("ran before its time")
		default:
		}
	}
	run := func(err error) {
		t.Helper()
		select {
		case <-runs:
			results <- err
		case <-time.After(30 * time.Second):
			t.Fatal("did not run when its time came")
		}
	}
	w := next(2 * time.Minute)
	noRun()
	w.fire <- time.Time{}
	run(nil)
	w = next(24 * time.Hour)
	noRun()
	w.fire <- time.Time{}
	run(errors.New("CACHE_BUSY"))
	w = next(time.Hour) // a failed run: again within the hour
	w.fire <- time.Time{}
	run(nil)
	next(24 * time.Hour) // and back to once a day
	cancel()             // the window closes mid-wait
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("still waiting after the window closed")
	}
	noRun()
}
