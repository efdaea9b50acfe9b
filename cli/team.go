package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// Working as a team (contract 1.1) on the command line: me, claim, release,
// next, note; the team fields of items --json and item; demo-api's
// reviewers and contract version. ITEM_CHANGED and CLAIMED exit 6 with one
// line naming who and what; against a 1.0 service claims and notes say the
// service does not offer them.

// configureTeam applies REVIEWER_CLAIM_TTL (default 15m).
func (r *runner) configureTeam(svc *review.Service) error {
	v, ok := r.env.Lookup("REVIEWER_CLAIM_TTL")
	if !ok || v == "" {
		return nil
	}
	d, err := policy.ParseClaimTTL(v)
	if err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_CLAIM_TTL: %s", policy.ErrorMessage(err))
	}
	svc.SetClaimTTL(d)
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

type noteJSON struct {
	ID        string    `json:"id,omitempty"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
	State     string    `json:"state"` // done, or queued/sending/unknown/failed on its way
}

func teamFields(v review.ItemView) teamJSON {
	j := teamJSON{NotesCount: v.Notes}
	if v.Revision > 0 {
		rev := v.Revision
		j.Revision = &rev
	}
	if c := v.Claim; c != nil && time.Now().Before(c.ExpiresAt) {
		who, until := c.Reviewer, c.ExpiresAt
		j.ClaimedBy, j.ClaimExpiresAt = &who, &until
	}
	if !v.StatusSince.IsZero() {
		since := v.StatusSince
		j.StatusSince = &since
	}
	return j
}

func notesJSON(ns []store.NoteRow) []noteJSON {
	out := make([]noteJSON, 0, len(ns))
	for _, n := range ns {
		out = append(out, noteJSON{ID: n.RemoteID, Author: n.Author, Text: n.Text, CreatedAt: n.CreatedAt, State: string(n.State)})
	}
	return out
}

// printTeam writes the item's revision, claim and notes.
func (r *runner) printTeam(w io.Writer, d review.Detail) {
	if d.Revision > 0 {
		fmt.Fprintf(w, "revision: %d\n", d.Revision)
	}
	if !d.StatusSince.IsZero() {
		fmt.Fprintf(w, "%s since: %s\n", d.Status, d.StatusSince.Local().Format("2006-01-02 15:04"))
	}
	switch c := d.Claim; {
	case c != nil && time.Now().Before(c.ExpiresAt):
		fmt.Fprintf(w, "claim: %s until %s\n", show(c.Reviewer), policy.UntilText(c.ExpiresAt, time.Now()))
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
		id, err := svc.Identify(ctx)
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
		it, err := svc.Claim(ctx, pos[0], ttl)
		if err != nil {
			return claimFailed("claim "+pos[0], err)
		}
		fmt.Fprintf(out, "claimed %s until %s\n", show(it.ID), policy.UntilText(it.Claim.ExpiresAt, time.Now()))
	case "release":
		it, err := svc.Release(ctx, pos[0])
		if err != nil {
			return claimFailed("release "+pos[0], err)
		}
		fmt.Fprintf(out, "released %s\n", show(it.ID))
	case "next":
		res, err := svc.Next(ctx)
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
		res, err := svc.AddNote(ctx, pos[0], pos[1])
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

// reportNote prints a note's outcome and returns its exit status.
func (r *runner) reportNote(res review.NoteResult) (int, error) {
	n := res.Note
	switch n.State {
	case policy.ActionDone:
		fmt.Fprintf(r.env.Stdout, "note added to %s (%s)\n", show(n.ItemID), show(n.RemoteID))
		return ExitOK, nil
	case policy.ActionQueued:
		return ExitQueued, fmt.Errorf("note on %s queued (key %s): %w; 'reviewer flush' sends it once", n.ItemID, n.Key, res.Err)
	case policy.ActionUnknown, policy.ActionSending:
		return ExitUnknown, fmt.Errorf("note on %s: outcome unknown (key %s): %w; 'reviewer flush' sends it again with the same key", n.ItemID, n.Key, res.Err)
	}
	err := res.Err
	if err == nil {
		err = errors.New(n.LastError)
	}
	return exitFor(err), fmt.Errorf("note on %s refused by the API: %w", n.ItemID, err)
}

// demoFlags is the flag set of demo-api: the cache and client flags mean
// nothing to a server, and its --reviewer is NAME=TOKEN, not a name.
func (r *runner) demoFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("demo-api", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.BoolVar(&r.g.demo, "demo", r.g.demo, "serve the built-in pair of reviewers (ana and ben), printed at start")
	return fs
}

// teamOptions are demo-api's switches of contract version 1.1.
type teamOptions struct {
	reviewers []screenapi.Reviewer
	version   string
	// err is the first refused --reviewer or --reviewers-file. It is kept
	// here, not returned to the flag package, whose message would quote
	// the value given: NAME=TOKEN.
	err error
}

// keep records the first refusal of a reviewer flag.
func (t *teamOptions) keep(err error) error {
	if err != nil && t.err == nil {
		t.err = usagef("%v", err)
	}
	return nil
}

func (r *runner) teamFlags(fs *flag.FlagSet) *teamOptions {
	t := &teamOptions{version: screenapi.Version11}
	fs.Func("reviewer", "a reviewer and their token: NAME=TOKEN (repeatable; the token shows in the process list: prefer --reviewers-file)", func(v string) error {
		name, tok, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(tok) == "" {
			return t.keep(fmt.Errorf("--reviewer wants NAME=TOKEN"))
		}
		return t.keep(t.add("--reviewer", name, tok))
	})
	fs.Func("reviewers-file", "a file of NAME=TOKEN lines, one reviewer each (# starts a comment); readable by its owner only", func(path string) error {
		return t.keep(t.readFile(path))
	})
	fs.StringVar(&t.version, "api-version", t.version, "contract version to serve: 1.1, or 1.0 (no 1.1 fields, 404 on 1.1 endpoints)")
	return t
}

// add adds a reviewer; from says where it was given (never the token).
func (t *teamOptions) add(from, name, tok string) error {
	name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
	if len(tok) < client.MinTokenLength {
		// A console would refuse it at start: say so here, not there.
		return fmt.Errorf("%s: reviewer %s: the token has %d characters; a console takes at least %d", from, name, len(tok), client.MinTokenLength)
	}
	for _, rv := range t.reviewers {
		if rv.Name == name || rv.Token == tok {
			return fmt.Errorf("%s: reviewer %s: each reviewer and each token once", from, name)
		}
	}
	t.reviewers = append(t.reviewers, screenapi.Reviewer{Name: name, DisplayName: displayName(name), Token: tok})
	return nil
}

// maxReviewersFile is the most read of a --reviewers-file.
const maxReviewersFile = 1 << 20

// readFile reads --reviewers-file: NAME=TOKEN lines, blank lines and
// comments skipped. Like a token file it is refused when its group or
// others may read it: it holds every reviewer's token. Errors name the file
// and the line, never a token.
func (t *teamOptions) readFile(path string) error {
	f, fi, err := safefile.Open(path)
	if err != nil {
		var nr *safefile.NotRegularError
		if errors.As(err, &nr) {
			return fmt.Errorf("--reviewers-file %v", err)
		}
		return fmt.Errorf("--reviewers-file: cannot read %s: %v", path, unwrapPathErr(err))
	}
	defer f.Close()
	if perm := fi.Mode().Perm(); perm&0o044 != 0 {
		return fmt.Errorf("--reviewers-file %s can be read by other users (mode %04o): it holds tokens; chmod 600 %s", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReviewersFile+1))
	if err != nil {
		return fmt.Errorf("--reviewers-file: cannot read %s: %v", path, unwrapPathErr(err))
	}
	if len(data) > maxReviewersFile {
		return fmt.Errorf("--reviewers-file %s is larger than %s", path, safefile.Size(maxReviewersFile))
	}
	n := 0
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("--reviewers-file %s line %d", path, i+1)
		name, tok, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(tok) == "" {
			return fmt.Errorf("%s: want NAME=TOKEN", where)
		}
		if err := t.add(where, name, tok); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("--reviewers-file %s names no reviewer (want NAME=TOKEN lines)", path)
	}
	return nil
}

// unwrapPathErr drops the operation and path of an *fs.PathError: the
// message names the path itself.
func unwrapPathErr(err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (t *teamOptions) apply(opts *screenapi.Options, demo bool) error {
	if t.err != nil {
		return t.err
	}
	switch t.version {
	case screenapi.Version10, screenapi.Version11:
	default:
		return usagef("--api-version %q: want 1.0 or 1.1", t.version)
	}
	opts.APIVersion = t.version
	opts.Reviewers = t.reviewers
	if demo {
		opts.Reviewers = append(opts.Reviewers, screenapi.DemoReviewers()...)
	}
	return nil
}

// displayName makes "Ana" of "ana" for a reviewer given on the command line.
func displayName(name string) string {
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// printDemoReviewers tells a person how to start a console as each of the
// built-in demo reviewers. Only the demo pair's tokens are printed: they are
// public by design; a token given with --reviewer never is.
func (r *runner) printDemoReviewers(url string, reviewers []screenapi.Reviewer) {
	demo := map[string]bool{}
	for _, d := range screenapi.DemoReviewers() {
		demo[d.Token] = true
	}
	for _, rv := range reviewers {
		if !demo[rv.Token] {
			fmt.Fprintf(r.env.Stdout, "reviewer %s (%s): token given on the command line\n", rv.Name, rv.DisplayName)
			continue
		}
		fmt.Fprintf(r.env.Stdout, "reviewer %s (%s): REVIEWER_API_URL=%s REVIEWER_API_TOKEN=%s REVIEWER_DB=/tmp/reviewer-%s.db reviewer\n",
			rv.Name, rv.DisplayName, url, rv.Token, rv.Name)
	}
}

// notesSummary is what a flush did with the notes outbox, if anything.
func notesSummary(fr review.FlushResult) string {
	if len(fr.Notes) == 0 {
		return ""
	}
	count := map[policy.ActionState]int{}
	for _, n := range fr.Notes {
		count[n.Note.State]++
	}
	return fmt.Sprintf("; %d notes: %d added, %d refused, %d unknown, %d still queued", len(fr.Notes),
		count[policy.ActionDone], count[policy.ActionFailed], count[policy.ActionUnknown], count[policy.ActionQueued])
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
