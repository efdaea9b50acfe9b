package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// Claims come from acting, not from resting: a row the program selected
// for her, or one she rests on however long, is not claimed; a dialog she
// opens on an item claims it, and n says what it claimed and until when.
func TestClaimsComeFromActingNotFromResting(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "DECODE_FAILED"), errorItem("itm_3", "INTERNAL_ERROR"))
	c, ft := newClaimsConsole(t, wf)
	// She moves to an item that needs her and rests there for an hour.
	c.apply(func() { c.items.move(1) })
	c.Settle()
	for i := 0; i < 4; i++ {
		ft.fireAll() // every timer the window set: as if an hour passed
	}
	// The program selects rows for her: a reload, a refresh.
	c.apply(c.reload)
	c.Settle()
	ft.fireAll()
	if got := callsWith(wf, "claim"); len(got) != 0 || c.panel.itemID != "itm_2" {
		t.Fatalf("resting on %s claimed: %v", c.panel.itemID, got)
	}
	// A dialog she opens on the item is work on it.
	c.apply(c.onSnooze)
	c.Settle()
	if got := callsWith(wf, "claim"); len(got) != 1 || got[0] != "claim itm_2" {
		t.Fatalf("the snooze dialog on itm_2: %v", got)
	}
	c.apply(func() {
		c.win.Canvas().Overlays().Top().Hide()
		c.win.Canvas().Overlays().Remove(c.win.Canvas().Overlays().Top())
	})
	// n claims the next item and says so, with until when.
	next := wf.setClaim("itm_3", &policy.Claim{Reviewer: "ana", ExpiresAt: time.Now().Add(15 * time.Minute)})
	view := errorItem("itm_3", "INTERNAL_ERROR")
	view.Item = next
	wf.next = review.NextResult{Item: &view, Claimed: true, Why: "claimed"}
	c.onRune('n')
	c.Settle()
	until := policy.UntilText(next.Claim.ExpiresAt, time.Now())
	want := "itm_3 is yours until " + until
	if c.panel.itemID != "itm_3" || !strings.Contains(c.panel.team.claim.Text, want) {
		t.Fatalf("after n: item %q, panel says %q, want %q", c.panel.itemID, c.panel.team.claim.Text, want)
	}
	if got := c.strip.pages.Text; !strings.Contains(got, want) {
		t.Fatalf("after n the strip says %q", got)
	}
}

// fireAll fires every timer that is set and not stopped, whatever its
// length, and waits for what they started.
func (ft *fakeTimers) fireAll() {
	ft.mu.Lock()
	var due []*fakeTimer
	for _, tm := range ft.pending {
		if !tm.stopped {
			due = append(due, tm)
		}
	}
	ft.pending = nil
	ft.mu.Unlock()
	for _, tm := range due {
		ft.c.apply(tm.f)
	}
	ft.c.Settle()
}

// startWork is her starting something on the shown item (a decision or a
// dialog opened on it), as the panel's keys and buttons and the snooze
// dialog do; it returns 1, for the checks that counted fired dwells.
func startWork(c *Console) int {
	c.apply(func() { c.panel.team.working(c.panel.itemID) })
	c.Settle()
	return 1
}
