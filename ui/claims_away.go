package ui

import (
	"time"

	"fyne.io/fyne/v2/widget"
)

// Away (claims.go): a claim the window keeps only because the reviewer is
// still on the item she started work on is let go when she is away, so that a window left open over
// lunch does not keep the item from the others. She is away when she has
// given the window none of her input for ClaimAway (REVIEWER_CLAIM_AWAY,
// 15 min), or when the window has been out of the foreground that long
// (policy.ClaimSituation.Away). The renewal at half the claim's length then
// releases that claim instead of renewing it; a claim kept for her open
// action (queued, sending, unknown) is kept as before. Her input is the
// keys, letters and shortcuts that reach the console, a row or a batch she
// selects (by key or pointer), the panel's buttons and note, the search, the
// viewer's keys, drags and wheel, and the window coming back to the
// foreground. Coming back claims nothing by itself: she claims the item
// again by starting something on it. Times are the console's clock
// (Options.Now).

// awaySaid is the panel's claim line once the window let her claim go.
func awaySaid(away time.Duration) string {
	return "Let go after " + humanDuration(away) + " away; act on it to take it again."
}

// sawInput records that the reviewer gave the window her input now.
func (c *Console) sawInput() {
	if c.panel == nil {
		return // still being built
	}
	v := c.panel.team
	v.lastInput = c.opts.Now()
}

// foreground records the window entering (in) or leaving the foreground.
// Coming back is her input; the time out of it counts towards away.
func (c *Console) foreground(in bool) {
	if c.panel == nil {
		return
	}
	v := c.panel.team
	if in {
		c.sawInput() // sees the time out of the foreground first
		v.outSince = time.Time{}
		return
	}
	if v.outSince.IsZero() {
		v.outSince = c.opts.Now()
	}
}

// away reports whether the reviewer is away at now: no input for
// ClaimAway, or out of the foreground that long.
func (v *teamView) away(now time.Time) bool {
	d := v.p.c.wf.Team.ClaimAway()
	if now.Sub(v.lastInput) >= d {
		return true
	}
	return !v.outSince.IsZero() && now.Sub(v.outSince) >= d
}

// watchInput has the window's own widgets report her input (sawInput):
// the items table's selection (but a selection a background result makes,
// such as a reload keeping the row), the panel's buttons, the note and the
// search. The console's keys, runes and shortcuts report it in console.go,
// the viewer's in viewer.go.
func (c *Console) watchInput() {
	if sel := c.items.table.OnSelected; sel != nil {
		c.items.table.OnSelected = func(id widget.TableCellID) {
			if !c.applyingResult {
				c.sawInput()
			}
			sel(id)
		}
	}
	for _, e := range []*widget.Entry{&c.batches.search.Entry, &c.panel.team.entry.Entry} {
		if changed := e.OnChanged; changed != nil {
			e.OnChanged = func(s string) {
				if !c.applyingResult { // a note sent clears the entry: not her doing
					c.sawInput()
				}
				changed(s)
			}
		}
	}
	p := c.panel
	for _, b := range []*widget.Button{&p.resubmit.Button, &p.request.Button, &p.upload.Button, &p.again.Button,
		&p.requeue.Button, &p.cancel.Button, &p.stop.Button, p.team.add, &p.team.next.Button} {
		if tapped := b.OnTapped; tapped != nil {
			b.OnTapped = func() {
				c.sawInput()
				tapped()
			}
		}
	}
}
