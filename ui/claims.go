package ui

import (
	"context"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// Claims (contract 1.1) in the window. Opening an item that
// needs a reviewer claims it; the claim is renewed while the item stays
// open and released when the reviewer moves on or closes the window (best
// effort: expiry covers a crash). An item another reviewer holds says "Ben
// is on this until 10:19" in its row and in the panel, with its action
// buttons off for that reason. Next (N) claims and opens the oldest item
// nobody holds. The panel's part for claims also shows the notes
// (notes.go) and says who or what changed an item (conflicts.go). A 1.0
// service offers neither claims nor notes: the panel says so.

// teamView is the team part of the item panel.
type teamView struct {
	p       *itemPanel
	claim   *widget.Label
	notes   *widget.Label
	entry   *textEntry // focus.go
	add     *widget.Button
	next    *tipButton
	content *fyne.Container

	// UI goroutine only:
	held       string      // the item this window holds a claim on
	renew      *time.Timer // renews the held claim at half its length
	said       string      // what the last claim or Next said (offline, not offered)
	saidItem   string
	claiming   string // an item whose claim is on its way
	releaseGen int
}

func newTeamView(p *itemPanel) *teamView {
	v := &teamView{p: p, claim: wrapped(""), notes: wrapped("")}
	v.claim.TextStyle.Bold = true
	v.entry = newTextEntry(p.c, true)
	v.entry.SetPlaceHolder("A note for the other reviewers (never shown to the customer)")
	v.entry.Wrapping = fyne.TextWrapWord
	v.entry.SetMinRowsVisible(2)
	v.add = widget.NewButtonWithIcon("Add note", theme.DocumentCreateIcon(), v.onAddNote)
	v.next = newTipButton("Next", theme.MediaSkipNextIcon(), "Claim and open the oldest item that needs a reviewer and nobody holds (key: n)", v.onNext)
	v.content = container.NewVBox(v.claim, container.NewBorder(nil, nil, nil, v.next, widget.NewLabel("Notes")), v.notes,
		v.entry, v.add)
	v.content.Hide()
	return v
}

// holderText is the sentence for another reviewer's claim, with the date
// when the claim does not end on now's day (policy.UntilText).
func holderText(c policy.Claim, now time.Time) string {
	name := c.Reviewer
	if r, n := utf8.DecodeRuneInString(name); n > 0 {
		name = string(unicode.ToUpper(r)) + name[n:]
	}
	return fmt.Sprintf("%s is on this until %s", name, policy.UntilText(c.ExpiresAt, now))
}

// withHolder adds another reviewer's claim to a row's status.
func withHolder(v review.ItemView, text string, imp widget.Importance) (string, widget.Importance) {
	if v.Holder == nil {
		return text, imp
	}
	now := v.At // the workflow's clock when the row was read
	if now.IsZero() {
		now = time.Now()
	}
	return text + " · " + holderText(*v.Holder, now), widget.WarningImportance
}

// render draws the claim and the notes; at the end of itemPanel.render, so
// that a claim by someone else turns the action buttons off with its reason.
func (v *teamView) render() {
	tw := v.p.c.wf
	v.content.Show()
	if !v.p.loaded {
		v.claim.SetText("")
		v.notes.SetText("")
		v.add.Disable()
		return
	}
	d := v.p.detail
	now := v.p.c.opts.Now()
	me := v.p.c.wf.Reviewer()
	v.claim.Importance = widget.MediumImportance
	switch {
	case d.HeldByOther(me, now) != nil:
		text := holderText(*d.HeldByOther(me, now), now)
		v.claim.SetText(text)
		v.claim.Importance = widget.WarningImportance
		v.p.setButtons(false, false, false)
		setOrHide(v.p.why, text+": the actions are off until the claim ends or is released.")
	case v.saidItem == d.ID && v.said != "":
		v.claim.SetText(v.said)
	case d.HeldBy(me, now):
		v.claim.SetText("You are on this until " + policy.UntilText(d.Claim.ExpiresAt, now) + ".")
	case tw.APIVersion() == "1.0":
		v.claim.SetText("Claims and notes: this service does not offer them.")
	default:
		v.claim.SetText("")
	}
	v.renderConflict(d)
	v.notes.SetText(notesText(d.NoteRows))
	if tw.APIVersion() == "1.0" {
		v.add.Disable()
		v.entry.Disable()
	} else {
		v.add.Enable()
		v.entry.Enable()
	}
	v.claim.Refresh()
}

// needsClaim reports whether opening the item claims it: it needs the
// reviewer (needsReviewer, policy.NeedsReviewer), the items `next` picks.
func needsClaim(d review.Detail) bool { return needsReviewer(d.ItemView) }

// opened is called when the panel shows an item: the claim held on another
// item is released, and this one is claimed when it needs a reviewer.
func (v *teamView) opened(d review.Detail) {
	tw := v.p.c.wf
	if v.held != "" && v.held != d.ID {
		v.releaseHeld()
	}
	if v.saidItem != d.ID {
		v.said, v.saidItem = "", ""
	}
	now := v.p.c.opts.Now()
	me := v.p.c.wf.Reviewer()
	switch {
	case tw.APIVersion() == "1.0", d.HeldByOther(me, now) != nil, v.claiming == d.ID:
	case d.HeldBy(me, now):
		v.held = d.ID
		v.scheduleRenew(d.ID, d.Claim.ExpiresAt.Sub(now)/2)
	case needsClaim(d):
		v.claimItem(d.ID)
	}
}

// claimItem claims (or renews) an item in the background.
func (v *teamView) claimItem(id string) {
	tw := v.p.c.wf
	v.claiming = id
	v.p.c.background(func(ctx context.Context) func() {
		it, err := tw.Claim(ctx, id, 0)
		return func() {
			v.claiming = ""
			v.saidItem, v.said = id, ""
			switch {
			case err == nil && it.Claim != nil:
				if v.p.itemID != id { // the reviewer moved on meanwhile
					v.held = id
					v.releaseHeld()
					return
				}
				v.held = id
				v.scheduleRenew(id, it.Claim.ExpiresAt.Sub(v.p.c.opts.Now())/2)
			case policy.ErrorCode(err) == policy.CodeClaimed:
				// The cache knows the holder now: render says who.
			case policy.ErrorCode(err) == policy.CodeNotOffered || client.IsNotOffered(err):
				v.said = "Claims: this service does not offer them."
			case err != nil:
				v.said = "Offline: no claim is possible now; a queued action still carries the revision you saw, and the service refuses it if the item changed."
			}
			if v.p.itemID == id {
				v.p.refresh()
			}
		}
	})
}

func (v *teamView) scheduleRenew(id string, after time.Duration) {
	if v.renew != nil {
		v.renew.Stop()
	}
	if after < time.Second {
		after = time.Second
	}
	v.renew = time.AfterFunc(after, func() {
		fyne.Do(func() {
			v.p.c.apply(func() {
				if v.held == id && v.p.itemID == id {
					v.claimItem(id)
				}
			})
		})
	})
}

// releaseHeld releases the claim this window holds, in the background.
func (v *teamView) releaseHeld() {
	id := v.held
	v.held = ""
	if v.renew != nil {
		v.renew.Stop()
		v.renew = nil
	}
	tw := v.p.c.wf
	if id == "" {
		return
	}
	v.p.c.background(func(ctx context.Context) func() {
		_, _ = tw.Release(ctx, id) // best effort: expiry covers the rest
		return nil
	})
}

// ReleaseClaims releases the claim this window holds and waits for it
// (closing the window), at most for timeout.
func (c *Console) ReleaseClaims(timeout time.Duration) {
	tw := c.wf
	v := c.panel.team
	id := v.held
	v.held = ""
	if v.renew != nil {
		v.renew.Stop()
	}
	if id == "" {
		return
	}
	// The window's own context has ended with it: the release has a short
	// one of its own.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, _ = tw.Release(ctx, id)
}

// onNext claims and opens the oldest item nobody holds.
func (v *teamView) onNext() {
	tw := v.p.c.wf
	v.next.Disable()
	v.p.c.background(func(ctx context.Context) func() {
		res, err := tw.Next(ctx)
		return func() {
			v.next.Enable()
			if err != nil {
				v.p.c.showError("Next item", err)
				return
			}
			if res.Item == nil {
				v.saidItem, v.said = v.p.itemID, res.Why
				v.p.render()
				return
			}
			id := res.Item.ID
			if v.held != "" && v.held != id {
				v.releaseHeld()
			}
			if res.Claimed {
				v.held = id
				if c := res.Item.Claim; c != nil {
					v.scheduleRenew(id, c.ExpiresAt.Sub(v.p.c.opts.Now())/2)
				}
				v.saidItem, v.said = id, ""
			} else {
				v.saidItem, v.said = id, "Next: "+res.Why+"."
			}
			v.p.c.openItem(id, res.Item.BatchID)
		}
	})
}

// openItem selects an item in the table, opening its batch first when the
// table lists another one (or all batches, when its batch is not listed).
func (c *Console) openItem(id, batchID string) {
	if c.items.selectItem(id) {
		return
	}
	c.items.wantID = id
	if i := c.batches.index(batchID); i >= 0 {
		c.batches.open(i)
		c.batches.list.ScrollTo(i)
		return
	}
	c.batches.all.SetChecked(true) // its callback refreshes the items
}

// selectItem selects an item's row (which opens it) when the table shows
// it; false when it does not.
func (t *itemTable) selectItem(id string) bool {
	for i := range t.rows {
		if t.rows[i].ID == id {
			t.table.Select(widget.TableCellID{Row: i, Col: 0})
			return true
		}
	}
	return false
}
