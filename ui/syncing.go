package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// Syncing, probing and flushing: the window's talk with the API, all in
// the background under the window's context; the strip (strip.go) only
// shows it.

// refreshStrip reads the connection and redraws the strip.
func (c *Console) refreshStrip() {
	c.background(func(ctx context.Context) func() {
		st, err := c.wf.Sync.Connectivity(ctx)
		return func() {
			if err == nil {
				c.conn = st
				c.trayConn(st) // tray.go
			}
			c.strip.show(c.conn, c.wf.Team.Reviewer(), c.opts.Now())
		}
	})
}

// showConnectivity keeps and draws what the connection is now.
func (c *Console) showConnectivity(st review.Connectivity) {
	c.conn = st
	c.trayConn(st) // tray.go
	c.strip.show(st, c.wf.Team.Reviewer(), c.opts.Now())
}

// Watch keeps the window in step with the world until ctx ends: every
// second or two it looks whether another process changed the cache, and
// while idle it probes the API (more rarely while it is down, never against
// the breaker or a Retry-After wait). When the API answers, queued and
// unknown actions go out without a click.
func (c *Console) Watch(ctx context.Context) {
	const cacheEvery = 1500 * time.Millisecond
	cache := time.NewTicker(cacheEvery)
	defer cache.Stop()
	next := time.NewTimer(time.Second)
	defer next.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-cache.C:
			c.checkCache(ctx)
		case <-next.C:
			st, ok := c.probeConn(ctx)
			if !ok {
				st = review.Connectivity{}
			}
			next.Reset(probeAfter(st, c.opts.Now()))
		}
	}
}

// How often the window probes: rarely while the API answers, often while
// it does not (the probe goes past the breaker, so nothing but this
// interval stands between the API's return and "Online"), and at the end
// of a wait the API asked for, when the actions it held back go out.
const (
	probeIdle = 15 * time.Second
	probeDown = 2 * time.Second
	// probeLate is how long after a wait's end the probe comes, so that
	// the wait is over on both clocks.
	probeLate = 100 * time.Millisecond
)

// probeAfter is how long the window waits from now before its next probe,
// given what the last one found. A probe that sees the API answer flushes
// the outbox at once (probe), so this is also how late queued work goes
// out: at most probeDown after the API answers again, at most probeLate
// after a rate limit's end.
func probeAfter(st review.Connectivity, now time.Time) time.Duration {
	d := probeIdle
	if st.Conn.State != review.ConnOnline {
		d = probeDown
	}
	if st.RateLimitedUntil.After(now) {
		// No call before the API's wait ends (Probe makes none): the
		// next probe is then.
		return max(d, st.RateLimitedUntil.Sub(now)+probeLate)
	}
	if st.Outbox.Waiting > 0 && st.Outbox.WaitUntil.After(now) {
		d = min(d, st.Outbox.WaitUntil.Sub(now)+probeLate)
	}
	return d
}

// checkCache redraws the window when the cache changed under it.
func (c *Console) checkCache(ctx context.Context) {
	v, err := c.wf.Sync.CacheVersion(ctx)
	if err != nil {
		return
	}
	c.mu.Lock()
	changed := c.version >= 0 && v != c.version
	c.version = v
	c.mu.Unlock()
	if changed {
		c.onUI(true, c.reload)
	}
}

// probe asks the API whether it answers (unless a sync runs, which tells
// anyway), redraws the strip, and flushes the outbox when it answers; when
// it answers again after an outage, it syncs (and flushes after).
func (c *Console) probe(ctx context.Context) review.ConnState {
	st, _ := c.probeConn(ctx)
	return st.Conn.State
}

// probeConn is probe, with what it found (ok false: nothing was learnt).
func (c *Console) probeConn(ctx context.Context) (review.Connectivity, bool) {
	c.mu.Lock()
	syncing := c.syncCancel != nil
	c.mu.Unlock()
	if !syncing {
		if _, err := c.wf.Sync.Probe(ctx); err != nil && ctx.Err() != nil {
			return review.Connectivity{}, false
		}
	}
	st, err := c.wf.Sync.Connectivity(ctx)
	if err != nil {
		return review.Connectivity{}, false
	}
	c.onUI(true, func() {
		// Back online after an outage: what changed meanwhile is read
		// now, not at the next scheduled sync.
		was := c.conn.Conn.State
		back := (was == review.ConnOffline || was == review.ConnCircuitOpen) && st.Conn.State == review.ConnOnline
		c.showConnectivity(st)
		switch {
		case st.Conn.State != review.ConnOnline || syncing:
		case c.syncAgain:
			c.onSync() // a first sync that failed, tried again by itself; it flushes after
		case back:
			c.onSync() // it flushes after
		default:
			c.autoFlush()
		}
	})
	return st, true
}

// autoFlush sends what waits in the outbox (queued actions, unknown
// outcomes to reconcile, each with its stored key), without a click.
func (c *Console) autoFlush() {
	if c.flushing {
		return
	}
	c.flushing = true
	c.background(func(ctx context.Context) func() {
		fr, err := c.wf.Actions.Flush(ctx)
		return func() {
			c.flushing = false
			if err == nil && len(fr.Results) > 0 {
				c.strip.say(flushSummary(fr))
				c.showRefused(fr) // outbox.go
				// A notification (notify.go); the strip said it above.
				c.notes.post(flushEndLine(fr))
				c.reload()
			}
		}
	})
}

// flushSummary says what a flush of the outbox did, in words.
func flushSummary(fr review.FlushResult) string {
	n := len(fr.Results)
	msg := "Sent " + plural(n, "action") + " from the outbox"
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{fr.Done, policy.StateWord(policy.ActionDone)}, {fr.Failed, policy.StateWord(policy.ActionFailed)},
		{fr.Unknown, "still " + policy.StateWord(policy.ActionUnknown)}, {fr.Queued, "still " + policy.StateWord(policy.ActionQueued)}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg + "." + refusedWhy(fr) // outbox.go: which, and why, in words
}

// onSync pulls changed batches, then sends what waits in the outbox. The
// UI goroutine only flips widgets; the work runs in the background.
func (c *Console) onSync() {
	c.mu.Lock()
	if c.syncCancel != nil {
		c.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.syncCancel = cancel
	c.mu.Unlock()
	c.sched.began() // background.go: the next one counts from its end
	c.strip.running(true)
	c.background(func(context.Context) func() {
		p, err := c.wf.Sync.Sync(ctx, func(p review.SyncProgress) {
			c.onUI(false, func() {
				c.strip.say(fmt.Sprintf("syncing: %s, %s", plural(p.Pages, "page"), plural(p.Items, "item")))
			})
		})
		var fr review.FlushResult
		if err == nil {
			fr, _ = c.wf.Actions.Flush(ctx)
		}
		return func() {
			c.mu.Lock()
			c.syncCancel = nil
			c.mu.Unlock()
			cancel()
			c.sched.ended(c.clock.Now())
			c.strip.running(false)
			switch {
			case err == nil:
				c.syncAgain = false
				msg := fmt.Sprintf("Synced: %s, %s, %d changed.", plural(p.Pages, "page"), plural(p.Items, "item"), p.Changed)
				if len(fr.Results) > 0 {
					msg += " " + flushSummary(fr)
					c.showRefused(fr) // outbox.go
				}
				c.strip.say(msg)
				c.strip.showNews(p.NewItems) // newitems.go
				c.announceNews(p.NewItems)   // notify.go
				c.announceAwaiting()         // decide.go
				c.notes.post(flushEndLine(fr))
			case policy.ErrorCode(err) == policy.CodeCancelled:
				c.strip.say(fmt.Sprintf("Sync cancelled after %s.", plural(p.Pages, "page")))
			default:
				// A first sync (nothing cached, or never completed) is tried
				// again by itself: without it there is nothing to work on.
				c.syncAgain = c.conn.Empty || c.conn.LastSync.IsZero()
				c.strip.say(syncFailedText(err, c.conn, c.syncAgain))
			}
			c.reload()
		}
	})
}

func (c *Console) onCancelSync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.syncCancel != nil {
		c.syncCancel()
	}
}

// syncFailedText says in words why a sync failed and what the window
// shows meanwhile. A sync is a read: its "outcome" is never unknown (a
// timeout is the API not answering in time), and there is no cached data
// to speak of in a cache that holds none.
func syncFailedText(err error, st review.Connectivity, again bool) string {
	var what string
	switch policy.ErrorCode(err) {
	case policy.CodeOutcomeUnknown:
		what = "the screening API did not answer in time."
	case policy.CodeAPIUnreachable:
		what = "the screening API cannot be reached."
	case policy.CodeCircuitOpen:
		what = "the screening API stopped answering."
	default:
		what = sentence(err)
	}
	msg := "Sync failed: " + what
	switch {
	case st.Empty:
		msg += " Nothing is cached yet."
	case st.LastSync.IsZero():
		msg += " Showing what the sync cached before it stopped."
	default:
		msg += " Showing cached data from " + dayClock(st.LastSync) + "."
	}
	if again {
		msg += " The console tries again by itself when the API answers."
	}
	return msg
}
