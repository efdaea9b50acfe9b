package ui

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Notifications: the system's (Fyne's App.SendNotification) when a sync
// brings items that need the reviewer ("5 new items need you in
// CUST-7049") and when an action ends unknown or refused. At most one a
// minute: what comes sooner is held and said, with whatever else came, in
// the next one. The same line is said in the strip at once, for systems
// that show no notifications. Preferences turn them off, and so does
// REVIEWER_NOTIFY=off (which Preferences then says and cannot undo).

// notifyEvery is the least time between two notifications.
const notifyEvery = time.Minute

const notifyTitle = "TrustScreen Reviewer"

// notifier sends the lines it is given as notifications, at most one per
// notifyEvery, coalescing the rest into the next.
type notifier struct {
	mu      sync.Mutex
	clock   Clock
	send    func(*fyne.Notification)
	on      func() bool // the setting, read at each line
	ctx     context.Context
	last    time.Time // when the last notification went
	held    []string  // lines waiting for the next
	waiting bool      // a send of the held lines is planned
	// sent, when set, is called after each notification (tests).
	sent func()
}

func newNotifier(ctx context.Context, clk Clock, send func(*fyne.Notification), on func() bool) *notifier {
	return &notifier{ctx: ctx, clock: clk, send: send, on: on}
}

// post sends line now, or holds it for the next notification when one
// went less than notifyEvery ago. With notifications off it does nothing.
func (n *notifier) post(line string) {
	if line == "" || !n.on() {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.held = append(n.held, line)
	if n.waiting {
		return
	}
	now := n.clock.Now()
	if n.last.IsZero() || now.Sub(n.last) >= notifyEvery {
		n.flushLocked(now)
		return
	}
	n.waiting = true
	fired, stop := n.clock.After(n.last.Add(notifyEvery).Sub(now))
	go func() {
		select {
		case <-n.ctx.Done():
			stop()
		case <-fired:
			n.mu.Lock()
			n.waiting = false
			if n.on() {
				n.flushLocked(n.clock.Now())
			} else {
				n.held = nil
			}
			n.mu.Unlock()
		}
	}()
}

// flushLocked sends the held lines as one notification.
func (n *notifier) flushLocked(now time.Time) {
	if len(n.held) == 0 {
		return
	}
	body := strings.Join(n.held, "\n")
	n.held, n.last = nil, now
	n.send(notification(notifyTitle, body))
	if n.sent != nil {
		n.sent()
	}
}

// newWorkLine says which new items need the reviewer, by customer: "5 new
// items need you in CUST-7049", "3 new items need you in CUST-7049 and
// CUST-7050", "7 new items need you in 4 batches".
func newWorkLine(rows []review.ItemView) string {
	if len(rows) == 0 {
		return ""
	}
	seen := map[string]bool{}
	var refs []string
	for _, r := range rows {
		ref := shown(r.CustomerRef)
		if r.CustomerRef == "" {
			ref = shown(r.BatchID)
		}
		if !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
	}
	sort.Strings(refs)
	what := "1 new item needs you"
	if len(rows) > 1 {
		what = fmt.Sprintf("%d new items need you", len(rows))
	}
	switch len(refs) {
	case 1:
		return what + " in " + refs[0]
	case 2:
		return what + " in " + refs[0] + " and " + refs[1]
	}
	return fmt.Sprintf("%s in %d batches", what, len(refs))
}

// actionEndLine says that an action ended unknown or refused ("" for any
// other end): "Re-submission of passport.jpg (CUST-7049): outcome unknown,
// checked later with the same key".
func actionEndLine(kind policy.ActionKind, item string, state policy.ActionState, code policy.Code) string {
	what := policy.ActionWord(kind)
	if what != "" {
		what = strings.ToUpper(what[:1]) + what[1:]
	}
	switch state {
	case policy.ActionUnknown:
		return what + " of " + item + ": outcome unknown, checked later with the same key"
	case policy.ActionFailed:
		why := ""
		if code != "" {
			why = " (" + string(code) + ")"
		}
		return what + " of " + item + ": refused by the service" + why
	}
	return ""
}

// flushEndLine says how many actions a flush left unknown or refused ("":
// none).
func flushEndLine(fr review.FlushResult) string { return endLine("Outbox", fr.Unknown, fr.Failed) }

// runEndLine is flushEndLine for a bulk run.
func runEndLine(p review.RunProgress) string { return endLine("Bulk action", p.Unknown, p.Failed) }

func endLine(what string, unknown, failed int) string {
	var parts []string
	if unknown > 0 {
		parts = append(parts, fmt.Sprintf("%d ended unknown (checked later with the same key)", unknown))
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d refused by the service", failed))
	}
	if len(parts) == 0 {
		return ""
	}
	return what + ": " + plural(unknown+failed, "action") + " did not go through: " + strings.Join(parts, ", ")
}

// announceNews notifies the items a sync brought that need the reviewer,
// named by customer; the strip's link to them says the same line
// (newitems.go).
func (c *Console) announceNews(ids []string) {
	if len(ids) == 0 {
		return
	}
	f := store.ItemFilter{}
	f.IDs = append([]string{}, ids...)
	c.background(func(ctx context.Context) func() {
		rows, err := c.wf.Listing.Items(ctx, f)
		if err != nil || len(rows) == 0 {
			return nil
		}
		line := newWorkLine(rows)
		return func() {
			if slices.Equal(c.strip.newIDs, ids) { // still the news the link shows
				c.strip.news.SetText(drawn(line) + map[bool]string{true: ": show it", false: ": show them"}[len(ids) == 1])
				c.strip.row2.Refresh()
			}
			c.notes.post(line)
		}
	})
}

// notifyLine says line in the strip, and as a notification (notifier).
func (c *Console) notifyLine(line string) {
	if line == "" {
		return
	}
	c.strip.notice(line)
	c.notes.post(line)
}

// notifyOn reports whether notifications are on: not off by the
// environment, nor in Preferences.
func (c *Console) notifyOn() bool {
	return !c.opts.NotifyOff && c.settings.store().StringWithFallback(prefNotify, "on") != "off"
}
