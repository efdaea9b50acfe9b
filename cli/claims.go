package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// Claims on the command line (contract 1.1): claim, release and next,
// REVIEWER_CLAIM_TTL, and what items --json and item say of an item's
// revision, claim and notes. teamCommand also runs me (who the service
// says the reviewer is) and note (notes.go). ITEM_CHANGED and CLAIMED exit
// 6 with one line naming who and what; against a 1.0 service claims and
// notes say the service does not offer them. demo-api's reviewers and
// contract version are in demoapi.go.

// configureTeam gives the workflow REVIEWER_CLAIM_TTL (default 15m) and
// the time away after which a claim held only by looking is let go,
// --claim-away or REVIEWER_CLAIM_AWAY (default 15m).
func (r *runner) configureTeam(cfg *review.Config) error {
	name, v := "--claim-away", r.g.claimAway
	if v == "" {
		name = "REVIEWER_CLAIM_AWAY"
		v, _ = r.env.Lookup(name)
	}
	if v != "" {
		d, err := policy.ParseClaimAway(v)
		if err != nil {
			return policy.Errorf(policy.CodeInvalidInput, "%s: %s", name, policy.ErrorMessage(err))
		}
		cfg.ClaimAway = d
	}
	v, ok := r.env.Lookup("REVIEWER_CLAIM_TTL")
	if !ok || v == "" {
		return nil
	}
	d, err := policy.ParseClaimTTL(v)
	if err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_CLAIM_TTL: %s", policy.ErrorMessage(err))
	}
	cfg.ClaimTTL = d
	return nil
}

// teamJSON is what items --json and item --json say of the team.
type teamJSON struct {
	Revision       *int64     `json:"revision"` // null: the service reports none (1.0)
	ClaimedBy      *string    `json:"claimed_by"`
	ClaimExpiresAt *time.Time `json:"claim_expires_at"`
	StatusSince    *time.Time `json:"status_since"`
	NotesCount     int        `json:"notes_count"`
	Notes          []noteJSON `json:"notes,omitempty"`
}

func teamFields(v review.ItemView) teamJSON {
	j := teamJSON{NotesCount: v.Notes}
	if v.Revision > 0 {
		rev := v.Revision
		j.Revision = &rev
	}
	if c := v.LiveClaim(v.At); c != nil {
		who, until := c.Reviewer, c.ExpiresAt
		j.ClaimedBy, j.ClaimExpiresAt = &who, &until
	}
	if !v.StatusSince.IsZero() {
		since := v.StatusSince
		j.StatusSince = &since
	}
	return j
}

// printTeam writes the item's revision, claim and notes.
func (r *runner) printTeam(w io.Writer, d review.Detail) {
	if d.Revision > 0 {
		fmt.Fprintf(w, "revision: %d\n", d.Revision)
	}
	if !d.StatusSince.IsZero() {
		fmt.Fprintf(w, "%s since: %s\n", d.Status, d.StatusSince.Local().Format("2006-01-02 15:04"))
	}
	switch c := d.LiveClaim(d.At); {
	case c != nil:
		fmt.Fprintf(w, "claim: %s until %s\n", show(c.Reviewer), policy.UntilText(c.ExpiresAt, d.At))
	case d.Revision > 0:
		fmt.Fprintln(w, "claim: nobody")
	}
	if len(d.NoteRows) == 0 {
		fmt.Fprintln(w, "notes: none")
	}
	for _, n := range d.NoteRows {
		state := ""
		if n.State != policy.ActionDone {
			state = " [" + string(n.State) + "]"
		}
		fmt.Fprintf(w, "note %s %s%s: %s\n", n.CreatedAt.Local().Format("2006-01-02 15:04"), show(n.Author), state,
			safetext.Line(n.Text, safetext.Message))
	}
}

func (r *runner) teamCommand(cmd string, args []string) (int, error) {
	fs := r.flags(cmd)
	asJSON := fs.Bool("json", false, "print JSON (me, next)")
	ttlFlag := fs.String("ttl", "", "how long the claim lasts, 1m to 1h (claim; default REVIEWER_CLAIM_TTL or 15m)")
	n := map[string]int{"me": 0, "next": 0, "claim": 1, "release": 1, "note": 2}[cmd]
	pos, err := r.parse(fs, args, n)
	if err != nil {
		return ExitUsage, err
	}
	// A --ttl that was given is checked as REVIEWER_CLAIM_TTL is, whatever
	// it says: "0s" is refused, never taken for the default (which would
	// silently shorten a longer claim the reviewer meant to renew).
	var ttl time.Duration
	if flagSet(fs, "ttl") {
		if ttl, err = policy.ParseClaimTTL(*ttlFlag); err != nil {
			return ExitUsage, usagef("--ttl: %s", policy.ErrorMessage(err))
		}
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	out := r.env.Stdout
	switch cmd {
	case "me":
		id, err := svc.Team.Identify(ctx)
		if *asJSON {
			return ExitOK, r.printJSON(map[string]string{"reviewer": id.Reviewer, "display_name": id.DisplayName,
				"api_version": id.APIVersion, "source": id.Source})
		}
		fmt.Fprintf(out, "%s (%s), from %s\n", show(id.Reviewer), show(id.DisplayName), id.Source)
		if err != nil {
			fmt.Fprintf(out, "the service could not be asked: %s\n", safetext.Line(policy.ErrorMessage(err), safetext.Message))
		}
		return ExitOK, nil
	case "claim":
		it, err := svc.Team.Claim(ctx, pos[0], ttl)
		if err != nil {
			return claimFailed("claim "+pos[0], err)
		}
		fmt.Fprintf(out, "claimed %s until %s\n", show(it.ID), policy.UntilText(it.Claim.ExpiresAt, svc.Now()))
	case "release":
		it, err := svc.Team.Release(ctx, pos[0])
		if err != nil {
			return claimFailed("release "+pos[0], err)
		}
		fmt.Fprintf(out, "released %s\n", show(it.ID))
	case "next":
		res, err := svc.Team.Next(ctx)
		if err != nil {
			return exitFor(err), err
		}
		// The item is still shown when its claim could not be made, but
		// the command says so and fails: nothing is queued.
		code, cerr := ExitOK, error(nil)
		if res.ClaimErr != nil && res.Item != nil {
			what := "%s could not be claimed: %w"
			if exitFor(res.ClaimErr) == ExitUnknown { // the claim may have been made
				what = "the claim of %s has no readable answer: %w"
			}
			code, cerr = claimFailed("next", fmt.Errorf(what, res.Item.ID, res.ClaimErr))
		}
		if *asJSON {
			if res.Item == nil {
				return ExitOK, r.printJSON(map[string]any{"item": nil, "claimed": false, "why": res.Why})
			}
			if err := r.printJSON(map[string]any{"item": toJSON(*res.Item), "claimed": res.Claimed, "why": res.Why}); err != nil {
				return ExitFailure, err
			}
			return code, cerr
		}
		if res.Item == nil {
			fmt.Fprintln(out, res.Why)
			return ExitOK, nil
		}
		v := res.Item
		fmt.Fprintf(out, "%s  %s  %s %s: %s\n%s\n", show(v.ID), show(v.FileName), v.Status, show(string(v.ErrorCode)),
			safetext.Line(res.Why, safetext.Message), safetext.Line(policy.Describe(v.Item), safetext.Message))
		return code, cerr
	case "note":
		res, err := svc.Team.AddNote(ctx, pos[0], pos[1])
		if err != nil {
			return exitFor(err), err
		}
		return r.reportNote(res)
	}
	return ExitOK, nil
}

// claimFailed is the exit of a claim, a release or next whose call never
// reached the service (unreachable, circuit open, no budget). Unlike an
// action, a claim is never queued: it is made now or not at all, and making
// it again is harmless (a claim of one's own renews). So it exits 7,
// "failed, nothing queued, run it again", not 5 ("not sent, queued"). A
// claim whose answer was lost stays 4, with its own words (review.Claim).
func claimFailed(cmd string, err error) (int, error) {
	if exitFor(err) == ExitQueued {
		return ExitReadFailed, readError{err: fmt.Errorf("%w; nothing is queued", err), again: "reviewer " + cmd}
	}
	return exitFor(err), err
}
