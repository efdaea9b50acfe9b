package policy

import (
	"strings"
	"time"
)

// A claim is a reviewer's hold on an item (contract version 1.1): who holds
// it, until when. A 1.0 service sends none; an item then has no claim.

// Claim numbers: the contract allows 60 s to 3600 s; the console asks for
// 15 minutes unless configured otherwise.
const (
	DefaultClaimTTL = 15 * time.Minute
	MinClaimTTL     = time.Minute
	MaxClaimTTL     = time.Hour
)

// RawClaim is a claim as the service sent it.
type RawClaim struct {
	Reviewer  string    `json:"reviewer"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Claim is who holds an item, until when.
type Claim struct {
	Reviewer  string
	ExpiresAt time.Time
}

// LiveClaim returns the claim on the item at now, or nil when nobody holds
// it: an expired claim is no claim, from the instant it ends. Every "who
// holds it" of the window, the command line and the workflow is judged
// here, against the workflow's clock.
func (t Team) LiveClaim(now time.Time) *Claim {
	if t.Claim == nil || !now.Before(t.Claim.ExpiresAt) {
		return nil
	}
	return t.Claim
}

// HeldByOther returns the claim when someone other than me holds the item
// at now, or nil.
func (t Team) HeldByOther(me string, now time.Time) *Claim {
	if c := t.LiveClaim(now); c != nil && c.Reviewer != me {
		return c
	}
	return nil
}

// HeldBy reports whether reviewer holds a live claim on the item at now.
func (t Team) HeldBy(reviewer string, now time.Time) bool {
	c := t.LiveClaim(now)
	return c != nil && c.Reviewer == reviewer
}

// CheckClaimTTL returns nil when d is a claim length the contract allows
// (60 s to 3600 s, in whole seconds). Zero is no exception: it is refused
// like any other length outside the range, never taken for the default.
func CheckClaimTTL(d time.Duration) error {
	if d < MinClaimTTL || d > MaxClaimTTL || d%time.Second != 0 {
		return Errorf(CodeInvalidInput, "a claim lasts from 1m to 1h in whole seconds; %v is not allowed", d)
	}
	return nil
}

// ParseClaimTTL reads a claim length as a person wrote it (Go syntax: 15m,
// 90s) and checks it with CheckClaimTTL. REVIEWER_CLAIM_TTL and the claim
// command's --ttl both go through it, so they refuse the same values.
func ParseClaimTTL(v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, Errorf(CodeInvalidInput, "%q is not a Go duration such as 15m", v)
	}
	if err := CheckClaimTTL(d); err != nil {
		return 0, err
	}
	return d, nil
}

// UntilText says when a claim ends, for a person in the reviewer's time
// zone (time.Local): the time alone when it is on the same day as now
// ("23:59"), else with its date ("Dec 2 09:17"), and with its year when
// that is not now's year ("Dec 31 9999 23:59"). A claim that ends
// tomorrow, or in the year 9999, must never read as ending tonight.
func UntilText(end, now time.Time) string {
	end, now = end.Local(), now.Local()
	ey, em, ed := end.Date()
	ny, nm, nd := now.Date()
	switch {
	case ey == ny && em == nm && ed == nd:
		return end.Format("15:04")
	case ey == ny:
		return end.Format("Jan 2 15:04")
	}
	return end.Format("Jan 2 2006 15:04")
}

// When the window takes a claim. A claim tells the other reviewers that
// someone works on an item, so it follows the work, not the cursor: it is
// never taken when the window opens, nor for a row the program selected
// for her (after a dialog closed, after a view was applied), nor for a row
// she passes through or rests on, however long. It is taken when she
// starts something on the item: a key or button that acts, opening a
// decision or a dialog on it, writing a note on an item that needs her,
// or Next. It is released when she moves on, unless she has an open
// action on the item (queued, sending, unknown): the item is hers while
// her intent is open, so the claim is kept and renewed until the action
// ends. A claim kept only because she is still on the item is also
// released when she is away (no input for REVIEWER_CLAIM_AWAY, 15 min, or
// the window out of the foreground that long): a window left open over
// lunch does not keep the item from the others.

// Away numbers: how long the reviewer gives the window none of her input
// (or leaves it out of the foreground) before a claim held only because
// she looks at an item is let go.
const (
	DefaultClaimAway = 15 * time.Minute
	MinClaimAway     = time.Minute
	MaxClaimAway     = 8 * time.Hour
)

// ParseClaimAway reads REVIEWER_CLAIM_AWAY (Go syntax: 15m), 1m to 8h.
func ParseClaimAway(v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, Errorf(CodeInvalidInput, "%q is not a Go duration such as 15m", v)
	}
	if d < MinClaimAway || d > MaxClaimAway {
		return 0, Errorf(CodeInvalidInput, "the time away before a claim is let go is from %v to %v; %v is not allowed", MinClaimAway, MaxClaimAway, d)
	}
	return d, nil
}

// ClaimSituation is what the window knows of one item when it decides
// about the reviewer's claim on it.
type ClaimSituation struct {
	Offered       bool        // the service offers claims (contract 1.1)
	HeldByMe      bool        // she holds a live claim on it
	HeldByOther   bool        // another reviewer holds a live claim on it
	NeedsReviewer bool        // NeedsReviewer: there is something for her to do
	OpenAction    ActionState // her open action on it, "" when none
	Shown         bool        // it is the item she is on
	Acting        bool        // she acts on it now (re-submit, file request, upload)
	Writing       bool        // she writes a note on it now
	// Away: she has given the window none of her input for the away time,
	// or the window has been out of the foreground that long.
	Away bool
}

// ClaimMove is what to do with the claim on an item.
type ClaimMove int

const (
	// ClaimLeave: take none, release none.
	ClaimLeave ClaimMove = iota
	// ClaimHold: take the claim, or keep and renew the one she holds.
	ClaimHold
	// ClaimRelease: release the claim she holds.
	ClaimRelease
)

func (m ClaimMove) String() string {
	switch m {
	case ClaimHold:
		return "hold"
	case ClaimRelease:
		return "release"
	}
	return "leave"
}

// DecideClaim is the one rule for the window's claims.
func DecideClaim(s ClaimSituation) ClaimMove {
	switch {
	case !s.Offered, s.HeldByOther:
		return ClaimLeave // nothing to claim, or not hers to claim
	case s.Acting:
		return ClaimHold // an action is work on the item, whatever it needed before
	case s.OpenAction.Open() && s.HeldByMe:
		return ClaimHold // her intent is open: the item stays hers until it ends
	case !s.NeedsReviewer:
		if s.HeldByMe {
			return ClaimRelease // nothing left for her to do
		}
		return ClaimLeave
	case s.Shown && s.Writing:
		return ClaimHold
	case s.Shown && s.HeldByMe && !s.Away:
		return ClaimHold // she is still on the item she started work on
	case s.HeldByMe:
		return ClaimRelease // she moved on, or she is away from the item she looked at
	}
	return ClaimLeave
}
