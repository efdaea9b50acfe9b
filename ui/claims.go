package ui

import (
	"context"
	"fmt"
	"strings"
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

// Claims (contract 1.1) in the window. A claim follows the work, not the
// cursor (policy.DecideClaim): nothing is claimed when the window opens,
// nor for a row the program selected for her (after a dialog closed, a view
// applied, a reload), nor for a row she passes through or rests on,
// however long. An item is claimed when she starts something on it: a key
// or button that acts (r, f, u and their confirmations), a dialog on it
// (snooze), writing a note on it while it needs her, or Next (n). The
// claim is renewed at half its length while she stays, and released when
// she moves on, unless her action on the item is still open (queued,
// sending, unknown): then it is kept and renewed until the action ends.
// A claim kept only because she stays on the item is let go when she is
// away, at its next renewal (claims_away.go: REVIEWER_CLAIM_AWAY, 15 min).
// Closing the window releases the claims it holds but those (best effort:
// expiry covers a crash). An item another reviewer holds says "held: Ben"
// in its row and "Ben is on this until 10:19" at the top of the panel,
// with its action buttons off for that reason, and r, f and u say so
// instead of asking. Next (n) claims and opens the oldest item nobody
// holds, and says what it claimed ("itm_3 is yours until 14:35"). The
// panel's part for claims also shows the notes (notes.go) and says who or
// what changed an item (conflicts.go). A 1.0 service offers neither claims
// nor notes: the panel says so.

// teamView is the team part of the item panel.
type teamView struct {
	p       *itemPanel
	claim   *textLabel
	notes   *textLabel
	entry   *textEntry // focus.go
	add     *widget.Button
	next    *tipButton
	content *fyne.Container

	// after runs f on the UI goroutine after d, unless stopped: the dwell
	// and the renewals wait on it (a test's own clock replaces it).
	after func(d time.Duration, f func()) (stop func())

	// UI goroutine only:
	held      map[string]*heldClaim // the claims this window holds, by item
	claiming  map[string]bool       // items whose claim (or renewal) is on its way
	failed    map[string]bool       // claims that could not be made: tried again when she acts, writes or comes back
	shown     string                // the item the reviewer is on, as the claims see it
	lastInput time.Time             // when she last gave the window her input (claims_away.go)
	outSince  time.Time             // when the window left the foreground; zero while in it
	said      string                // what the last claim or Next said (offline, not offered, let go)
	saidItem  string
}

// heldClaim is a claim this window holds, with its renewal.
type heldClaim struct {
	stop  func()
	after time.Duration // when the renewal is due, from when it was taken
}

func newTeamView(p *itemPanel) *teamView {
	v := &teamView{p: p, claim: wrapped(""), notes: wrapped(""),
		held: map[string]*heldClaim{}, claiming: map[string]bool{}, failed: map[string]bool{},
		lastInput: p.c.opts.Now()} // opening the window is her doing
	v.after = func(d time.Duration, f func()) func() {
		t := time.AfterFunc(d, func() { v.p.c.onUI(false, f) })
		return func() { t.Stop() }
	}
	v.claim.TextStyle.Bold = true
	v.entry = newTextEntry(p.c, 2, "A note for the other reviewers (never shown to the customer)")
	v.entry.OnChanged = func(text string) {
		// Writing a note is work on the item: it claims it when it needs her.
		if strings.TrimSpace(text) != "" && v.p.ready() {
			v.decide(v.p.detail, claimWriting)
		}
	}
	v.add = widget.NewButtonWithIcon("Add note", theme.DocumentCreateIcon(), v.onAddNote)
	v.next = newTipButton("Next", theme.MediaSkipNextIcon(), "Claim and open the oldest item that needs a reviewer and nobody holds (key: n)", v.onNext)
	// The claim line is drawn by the panel above the picture (panel.go).
	v.content = container.NewVBox(container.NewBorder(nil, nil, nil, v.next, newLabel("Notes")), v.notes,
		v.entry, v.add)
	v.content.Hide()
	return v
}

// holderText is the sentence for another reviewer's claim, with the date
// when the claim does not end on now's day (policy.UntilText).
func holderText(c policy.Claim, now time.Time) string {
	return fmt.Sprintf("%s is on this until %s", holderName(c), policy.UntilText(c.ExpiresAt, now))
}

// holderName is the reviewer holding a claim, capitalised.
func holderName(c policy.Claim) string {
	name := shown(c.Reviewer)
	if r, n := utf8.DecodeRuneInString(name); n > 0 {
		name = string(unicode.ToUpper(r)) + name[n:]
	}
	return name
}

// holderCell is another reviewer's claim in a row's Action cell, in a few
// words ("held: Ben", to fit the narrow column): until when is in the
// cell's tooltip (holderHint), the panel and the strip.
func holderCell(c policy.Claim) string { return "held: " + holderName(c) }

// withHolder puts who holds a row another reviewer holds before a cell's
// words, when she has no action of her own on it (as actionCell says it).
func withHolder(cell func(review.ItemView) (string, widget.Importance)) func(review.ItemView) (string, widget.Importance) {
	return func(v review.ItemView) (string, widget.Importance) {
		text, imp := cell(v)
		if v.Action == nil && v.Holder != nil {
			return holderCell(*v.Holder) + " · " + text, widget.WarningImportance
		}
		if word, dimp := rowDecision(v.Item, v.Me); word != "" && v.OpenAction() == "" {
			// decide.go: "to confirm · scored · 11 d", when the Action column went
			if dimp == widget.WarningImportance {
				imp = dimp
			}
			return word + " · " + text, imp
		}
		return text, imp
	}
}

// holderHint is the held row's Action cell's tooltip: the whole sentence
// ("" when nobody else holds the item).
func holderHint(v review.ItemView) string {
	if v.Holder == nil {
		return ""
	}
	now := v.At // the workflow's clock when the row was read
	if now.IsZero() {
		now = time.Now()
	}
	return holderText(*v.Holder, now)
}

// render draws the claim and the notes; at the end of itemPanel.render, so
// that a claim by someone else turns the action buttons off with its reason.
func (v *teamView) render() {
	tw := v.p.c.wf
	v.content.Show()
	if !v.p.loaded {
		setOrHide(v.claim, "")
		v.notes.SetText("")
		v.add.Disable()
		return
	}
	d := v.p.detail
	now := v.p.c.opts.Now()
	me := v.p.c.wf.Team.Reviewer()
	text, look := "", widget.MediumImportance
	switch {
	case d.HeldByOther(me, now) != nil:
		text, look = holderText(*d.HeldByOther(me, now), now), widget.WarningImportance
		v.p.setButtons(false, false, false)
		setOrHide(v.p.why, text+": the actions are off until the claim ends or is released.")
	case v.saidItem == d.ID && v.said != "":
		text = v.said
	case d.HeldBy(me, now):
		text = "You are on this until " + policy.UntilText(d.Claim.ExpiresAt, now) + "."
	case tw.Team.APIVersion() == "1.0":
		text = "Claims and notes: this service does not offer them."
	}
	if ownNoteWaits(d.NoteRows, me) { // said while it waits, never after it is sent
		text = strings.TrimSpace(text + " Your note waits in the outbox: it is sent once when the API answers.")
	}
	// In its colour, above the picture; no empty line when there is none.
	setLookOrHide(v.claim, text, look)
	v.renderConflict(d)
	v.notes.SetText(notesText(d.NoteRows))
	if tw.Team.APIVersion() == "1.0" {
		v.add.Disable()
		v.entry.Disable()
	} else {
		v.add.Enable()
		v.entry.Enable()
	}
}

// needsClaim reports whether staying on the item claims it: it needs the
// reviewer (needsReviewer, policy.NeedsReviewer), the items `next` picks.
func needsClaim(d review.Detail) bool { return needsReviewer(d.ItemView) }

// What the reviewer does on an item, for the claim.
type claimWork int

const (
	claimLooking claimWork = iota
	claimActing
	claimWriting
)

// opened is called whenever the panel has loaded an item, a new one or the
// shown one again (a reload): resting on it claims nothing, but a claim
// she holds on it is kept or let go as she stays or is away; the item she
// moved away from is looked at again, and so is every other item whose
// claim the window holds (its action may have ended meanwhile).
func (v *teamView) opened(d review.Detail) {
	if v.saidItem != d.ID {
		v.said, v.saidItem = "", ""
	}
	if d.ID != v.shown {
		v.shown = d.ID
		delete(v.failed, d.ID)
	}
	v.decide(d, claimLooking)
	v.recheckOthers(d.ID)
}

// situation is what policy.DecideClaim weighs for item d.
func (v *teamView) situation(d review.Detail, work claimWork) policy.ClaimSituation {
	now := v.p.c.opts.Now()
	me := v.p.c.wf.Team.Reviewer()
	open := d.OpenAction()
	if open == "" && v.p.c.flight(d.ID) != nil {
		open = policy.ActionSending // her action is on its way; its row may not be read yet
	}
	shown := d.ID == v.shown && d.ID == v.p.itemID
	return policy.ClaimSituation{
		Offered:       v.p.c.wf.Team.APIVersion() != "1.0",
		HeldByMe:      v.held[d.ID] != nil || d.HeldBy(me, now),
		HeldByOther:   d.HeldByOther(me, now) != nil,
		NeedsReviewer: needsClaim(d),
		OpenAction:    open,
		Shown:         shown,
		Acting:        work == claimActing,
		Writing:       work == claimWriting,
		Away:          v.away(now), // claims_away.go
	}
}

// decide applies policy.DecideClaim to item d: a claim is taken only when
// the window holds none on it (renewals run on their own timer), and
// released only when there is one to release.
func (v *teamView) decide(d review.Detail, work claimWork) {
	sit := v.situation(d, work)
	switch policy.DecideClaim(sit) {
	case policy.ClaimHold:
		if work != claimLooking {
			delete(v.failed, d.ID) // her own doing tries again
		}
		if v.held[d.ID] == nil && !v.claiming[d.ID] && !v.failed[d.ID] {
			v.claimItem(d.ID)
		}
	case policy.ClaimRelease:
		if present := sit; sit.Away && sit.Shown {
			present.Away = false
			if policy.DecideClaim(present) == policy.ClaimHold {
				v.saidItem, v.said = d.ID, awaySaid(v.p.c.wf.Team.ClaimAway()) // she is away, not done
			}
		}
		v.release(d.ID)
	default:
		if sit.HeldByOther {
			v.forget(d.ID) // someone else holds it now: nothing of ours to renew
		}
	}
}

// working is called when the reviewer acts on the shown item (act).
func (v *teamView) working(id string) {
	if v.p.ready() && v.p.detail.ID == id {
		v.decide(v.p.detail, claimActing)
	}
}

// recheckOthers reads again, in the background, every item whose claim the
// window holds but the one shown, and decides on each: moving on releases
// it unless her action on it is still open; the end of that action does.
func (v *teamView) recheckOthers(shown string) {
	var ids []string
	for id := range v.held {
		if id != shown && !v.claiming[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		v.recheck(ids, false)
	}
}

// recheck reads items again and decides on each; renew renews the claims
// that stay (their timer fired).
func (v *teamView) recheck(ids []string, renew bool) {
	tw := v.p.c.wf
	v.p.c.background(func(ctx context.Context) func() {
		ds := make([]review.Detail, 0, len(ids))
		for _, id := range ids {
			if d, err := tw.Listing.Item(ctx, id); err == nil {
				ds = append(ds, d)
			}
		}
		return func() {
			for _, d := range ds {
				if v.held[d.ID] == nil || v.claiming[d.ID] {
					continue // released or being claimed meanwhile
				}
				if renew && policy.DecideClaim(v.situation(d, claimLooking)) == policy.ClaimHold {
					v.claimItem(d.ID)
					continue
				}
				v.decide(d, claimLooking)
			}
		}
	})
}

// claimItem claims (or renews) an item in the background.
func (v *teamView) claimItem(id string) {
	tw := v.p.c.wf
	v.claiming[id] = true
	v.p.c.background(func(ctx context.Context) func() {
		it, err := tw.Team.Claim(ctx, id, 0)
		return func() {
			delete(v.claiming, id)
			v.saidItem, v.said = id, ""
			if err != nil && v.held[id] == nil {
				v.failed[id] = true // the refresh below must not try again at once, and again
			}
			if h := v.held[id]; err != nil && h != nil && policy.ErrorCode(err) != policy.CodeClaimed {
				// A renewal that failed: the claim may still be live; try
				// again at half the time that was left.
				v.hold(id, v.p.c.opts.Now().Add(h.after))
			}
			switch {
			case err == nil && it.Claim != nil:
				v.hold(id, it.Claim.ExpiresAt)
			case policy.ErrorCode(err) == policy.CodeClaimed:
				v.forget(id) // the cache knows the holder now: render says who
			case policy.ErrorCode(err) == policy.CodeNotOffered || client.IsNotOffered(err):
				v.said = "Claims: this service does not offer them."
			case err != nil:
				v.said = "Offline: no claim is possible now; a queued action still carries the revision you saw, and the service refuses it if the item changed."
			}
			if v.p.itemID == id {
				v.p.refresh() // shows the claim, and decides again on what is known now
			} else if v.held[id] != nil {
				v.recheck([]string{id}, false) // she moved on meanwhile
			}
		}
	})
}

// hold records a claim this window holds until end, renewed at half its
// remaining length.
func (v *teamView) hold(id string, end time.Time) {
	if h := v.held[id]; h != nil {
		h.stop()
	}
	after := end.Sub(v.p.c.opts.Now()) / 2
	if after < time.Second {
		after = time.Second
	}
	h := &heldClaim{after: after}
	v.held[id] = h
	h.stop = v.after(after, func() {
		if v.held[id] == h {
			v.recheck([]string{id}, true)
		}
	})
}

// forget drops a claim from what the window holds, with no call.
func (v *teamView) forget(id string) {
	if h := v.held[id]; h != nil {
		h.stop()
		delete(v.held, id)
	}
}

// release releases the reviewer's claim on an item, in the background
// (best effort: expiry covers the rest).
func (v *teamView) release(id string) {
	if v.claiming[id] {
		return // its outcome decides again
	}
	v.forget(id)
	tw := v.p.c.wf
	v.p.c.background(func(ctx context.Context) func() {
		_, _ = tw.Team.Release(ctx, id)
		return func() {
			if v.p.itemID == id {
				v.p.refresh()
			}
		}
	})
}

// ReleaseClaims releases the claims this window holds, but those on items
// with an open action of hers (they end by themselves within a claim's
// length), and waits for it (closing the window), at most for timeout.
func (c *Console) ReleaseClaims(timeout time.Duration) {
	v := c.panel.team
	ids := make([]string, 0, len(v.held))
	for id := range v.held {
		v.forget(id)
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return
	}
	// The window's own context has ended with it: the release has a short
	// one of its own.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, id := range ids {
		if d, err := c.wf.Listing.Item(ctx, id); err == nil && d.OpenAction().Open() {
			continue // her intent is open: the item stays hers until the claim ends
		}
		_, _ = c.wf.Team.Release(ctx, id)
	}
}

// refuseHeld says, instead of opening the confirmation of what, who holds
// the shown item and until when, when another reviewer does: the service
// would refuse the action.
func (v *teamView) refuseHeld(what string) bool {
	p := v.p
	if !p.ready() {
		return false
	}
	now := p.c.opts.Now()
	c := p.detail.HeldByOther(p.c.wf.Team.Reviewer(), now)
	if c == nil {
		return false
	}
	who := holderText(*c, now)
	p.note, p.noteDetails, p.noteItem = who+": "+what+" is off until the claim ends or is released; nothing was sent.", "", p.itemID
	p.renderMessage()
	if p.c.panelOff {
		showInformation(who, p.note, p.c.win)
	} else {
		// The panel's message may sit below the document, out of view:
		// the strip says it too, so that the key is answered where seen.
		p.c.strip.say(p.note)
	}
	return true
}

// onNext claims and opens the oldest item nobody holds.
func (v *teamView) onNext() {
	tw := v.p.c.wf
	v.next.Disable()
	v.p.c.background(func(ctx context.Context) func() {
		res, err := tw.Team.Next(ctx)
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
			if res.Claimed {
				v.saidItem, v.said = id, "Next: "+shown(id)+" is yours."
				if c := res.Item.Claim; c != nil {
					v.hold(id, c.ExpiresAt)
					v.said = "Next: " + shown(id) + " is yours until " + policy.UntilText(c.ExpiresAt, v.p.c.opts.Now()) + "."
				}
				v.p.c.strip.say(v.said) // what n claimed, where she looks
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
