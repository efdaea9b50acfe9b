package review

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// TeamAPI is what working as a team needs of the API (contract 1.1).
type TeamAPI interface {
	Me(ctx context.Context) (client.Identity, []client.Attempt, error)
	Claim(ctx context.Context, id string, ttl time.Duration) (policy.Item, []client.Attempt, error)
	Release(ctx context.Context, id string) (policy.Item, []client.Attempt, error)
	AddNote(ctx context.Context, id, key, text string, opts ...client.CallOption) (policy.Note, []client.Attempt, error)
}

// Working as a team, contract 1.1. The reviewer's name comes from GET
// /v1/me when the service offers it, stored in the cache for offline use;
// otherwise from --reviewer, REVIEWER_NAME or the system user. Every paid
// action carries If-Match with the revision stored when it was queued; a
// 412 or a 409 applies the item in the answer and says who or what changed
// it. Notes have their own outbox (store.NoteRow): exactly once by their own
// key, also offline, and never in the way of a paid action. A note carries
// no If-Match: it is not a decision on what the reviewer saw, and what a
// reviewer learnt must not be lost because the item moved on.

type teamState struct {
	mu              sync.Mutex
	identity        store.Identity
	identified      bool // GET /v1/me answered (or was not offered) in this process
	claimTTL        time.Duration
	afterNoteIntent func(store.NoteRow)
}

// Identity is who the reviewer is, and where that came from.
type Identity struct {
	Reviewer    string
	DisplayName string
	APIVersion  string // "1.1", "1.0", or "" when not known yet
	Source      string // the service, the cache, or this console's settings
}

func (s *Service) loadIdentity() {
	s.team.claimTTL = policy.DefaultClaimTTL
	id, err := s.db.Identity(context.Background())
	if err != nil {
		return
	}
	s.team.identity = id
	if id.Reviewer != "" {
		s.reviewer = id.Reviewer
	}
}

// APIVersion is the contract version the service last showed ("" unknown).
func (s *Service) APIVersion() string {
	s.team.mu.Lock()
	defer s.team.mu.Unlock()
	return s.team.identity.APIVersion
}

func (s *Service) setVersion(ctx context.Context, v string) {
	s.team.mu.Lock()
	id := s.team.identity
	id.APIVersion = v
	s.team.identity = id
	s.team.mu.Unlock()
	_ = s.db.SetIdentity(ctx, store.Identity{APIVersion: v})
}

// SetClaimTTL sets how long a claim lasts (REVIEWER_CLAIM_TTL; 15 min).
func (s *Service) SetClaimTTL(d time.Duration) {
	s.team.mu.Lock()
	defer s.team.mu.Unlock()
	s.team.claimTTL = d
}

// ClaimTTL is how long a claim lasts.
func (s *Service) ClaimTTL() time.Duration {
	s.team.mu.Lock()
	defer s.team.mu.Unlock()
	return s.team.claimTTL
}

// Identify asks the service who the reviewer is. With a 1.0 service, or
// offline, it says what the console goes by instead; err is the call's
// error when the service could not be asked.
func (s *Service) Identify(ctx context.Context) (Identity, error) {
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	me, _, err := s.api.Me(opCtx)
	s.observe(err)
	switch {
	case err == nil:
		if s.APIVersion() != "1.1" {
			// Items synced while the service spoke 1.0 carry no revision,
			// and an incremental sync would never bring most of them again.
			if err := s.db.MarkFullSyncIfUnrevised(ctx, "the service now speaks contract 1.1"); err != nil {
				return Identity{}, err
			}
		}
		st := store.Identity{Reviewer: me.Reviewer, DisplayName: me.DisplayName, APIVersion: "1.1"}
		if err := s.db.SetIdentity(ctx, st); err != nil {
			return Identity{}, err
		}
		s.team.mu.Lock()
		s.team.identity, s.team.identified = st, true
		s.team.mu.Unlock()
		s.SetReviewer(me.Reviewer)
		return Identity{Reviewer: me.Reviewer, DisplayName: me.DisplayName, APIVersion: "1.1", Source: "the screening service"}, nil
	case client.IsNotOffered(err):
		s.setVersion(ctx, "1.0")
		s.team.mu.Lock()
		s.team.identified = true
		s.team.mu.Unlock()
		return Identity{Reviewer: s.who(), DisplayName: s.who(), APIVersion: "1.0",
			Source: "this console (--reviewer, REVIEWER_NAME or the system user): the service does not offer GET /v1/me"}, nil
	}
	s.team.mu.Lock()
	st := s.team.identity
	s.team.mu.Unlock()
	if st.Reviewer != "" {
		return Identity{Reviewer: st.Reviewer, DisplayName: st.DisplayName, APIVersion: st.APIVersion,
			Source: "the cache (the service said so when last reached)"}, err
	}
	return Identity{Reviewer: s.who(), DisplayName: s.who(), APIVersion: st.APIVersion,
		Source: "this console (--reviewer, REVIEWER_NAME or the system user)"}, err
}

// identifyOnce asks GET /v1/me once per process, before the first sync.
func (s *Service) identifyOnce(ctx context.Context) {
	s.team.mu.Lock()
	done := s.team.identified
	s.team.mu.Unlock()
	if !done {
		_, _ = s.Identify(ctx)
	}
}

// ConflictError is the API's no that names who or what: ITEM_CHANGED (the
// item is not at the revision the reviewer saw) or CLAIMED (another reviewer
// holds it). Item is the item as it is now, already applied to the cache.
type ConflictError struct {
	Code     policy.Code
	Sentence string       // "re-analysed 2 min ago: now review, score 62"
	Item     *policy.Item // nil when the answer carried none
	cause    error
}

func (e *ConflictError) Error() string { return string(e.Code) + ": " + e.Sentence }

// ConsoleCode lets policy.ErrorCode read the code.
func (e *ConflictError) ConsoleCode() policy.Code { return e.Code }

// Unwrap is the client's error, when the API answered (nil: refused
// locally from what the cache knows).
func (e *ConflictError) Unwrap() error { return e.cause }

// notHeldByOther refuses, before any call, an action on an item that the
// cache knows another reviewer holds; then check judges as before.
func (s *Service) notHeldByOther(check func(policy.Situation) error) func(policy.Situation) error {
	return func(sit policy.Situation) error {
		if c := sit.Item.HeldByOther(s.who(), sit.Now); c != nil {
			it := sit.Item
			return &ConflictError{Code: policy.CodeClaimed, Item: &it, Sentence: claimSentence(*c, sit.Now) + "; nothing was sent"}
		}
		return check(sit)
	}
}

// explainConflict turns a 412 or a 409 CLAIMED into a ConflictError, and
// sets the item of the answer to be applied with the outcome. sent is the
// revision the reviewer acted on (an action's If-Match; 0: what the cache
// holds now) and queued when they did (an action's queued time; zero: now).
func (s *Service) explainConflict(ctx context.Context, apply **policy.Item, detail *string, itemID string, sent int64, queued time.Time, err error) error {
	e, ok := client.AsConflict(err)
	if !ok {
		return err
	}
	// What the cache holds, read even when the caller's context has ended:
	// the sentence is part of recording the outcome.
	rctx, cancel := recordCtx(ctx)
	defer cancel()
	v := seen{revision: sent, at: queued}
	if before, rerr := s.db.Item(rctx, itemID); rerr == nil {
		v.item, v.cached = before.Item, true
	}
	ce := &ConflictError{Code: e.Code, Item: e.Item, cause: err}
	if e.Item != nil && s.foreignAnswer(ctx, itemID, *e.Item) == nil {
		*apply = e.Item
	}
	ce.Sentence = s.conflictSentence(v, e)
	*detail = ce.Sentence
	return ce
}

// seen is what the console knows of the item the reviewer acted on.
type seen struct {
	item     policy.Item // the item as the cache holds it now
	cached   bool        // false: the cache could not be read, item is empty
	revision int64       // the revision the reviewer acted on (0: the cached one)
	at       time.Time   // when they acted on it (zero: now, on the cached item)
}

// acted is the revision the reviewer acted on, 0 when not known.
func (v seen) acted() int64 {
	if v.revision > 0 {
		return v.revision
	}
	if v.cached {
		return v.item.Revision
	}
	return 0
}

// newSince is the moment after which a note is news to the reviewer, and
// whether there is one. While the cache holds the revision they acted on,
// it is that revision's time. A sync may have moved the cache on since an
// action was queued (it then holds the very change that refused it, note
// and all), and a note is not stamped at its revision's instant: it is
// older by however long the service took between the two. Then the cached
// time says nothing of what the reviewer saw, and the queued time does: a
// note written after it was news to them.
func (v seen) newSince() (time.Time, bool) {
	if v.cached && (v.revision == 0 || v.item.Revision <= v.revision) {
		return v.item.UpdatedAt, true
	}
	return v.at, !v.at.IsZero()
}

func (s *Service) conflictSentence(v seen, e *client.Error) string {
	now := s.now()
	it := e.Item
	if e.Code == policy.CodeClaimed {
		if it != nil && it.Claim != nil {
			return claimSentence(*it.Claim, now)
		}
		return "another reviewer holds this item"
	}
	if it == nil {
		return "the item changed since you saw it; sync to see how"
	}
	before := v.item
	ago := agoText(now.Sub(it.UpdatedAt))
	since, sinceKnown := v.newSince()
	var what string
	switch {
	// Without the cached item there is nothing to compare with: an empty
	// one would make any answer look re-analysed or changed in status.
	case v.cached && it.Attempt > before.Attempt && (it.Status == policy.StatusScored || it.Status == policy.StatusError || it.Status == policy.StatusInvalid):
		what = "re-analysed " + ago + ": now " + stateText(*it)
	case v.cached && it.Status != before.Status && it.Status == policy.StatusAwaitingFile:
		what = "a new file was requested from the customer " + ago
	case v.cached && it.Status != before.Status:
		what = "changed " + ago + ": now " + stateText(*it)
	case sinceKnown && len(it.Notes) > 0 && !it.Notes[len(it.Notes)-1].CreatedAt.Before(since):
		n := it.Notes[len(it.Notes)-1]
		what = titled(n.Author) + " added a note " + agoText(now.Sub(n.CreatedAt))
	case it.Claim != nil:
		what = "claimed by " + it.Claim.Reviewer + " " + ago
	case v.acted() > 0:
		what = fmt.Sprintf("changed %s: now %s (revision %d; you saw %d)", ago, stateText(*it), it.Revision, v.acted())
	default:
		what = fmt.Sprintf("changed %s: now %s (revision %d)", ago, stateText(*it), it.Revision)
	}
	if c := it.HeldByOther(s.who(), now); c != nil && !strings.HasPrefix(what, "claimed") {
		what += "; " + claimSentence(*c, now)
	}
	return what
}

// claimSentence names who holds an item until when, with the date when the
// claim does not end today (policy.UntilText).
func claimSentence(c policy.Claim, now time.Time) string {
	return fmt.Sprintf("%s is on this until %s", titled(c.Reviewer), policy.UntilText(c.ExpiresAt, now))
}

func titled(name string) string {
	if name == "" {
		return "someone"
	}
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}

func agoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}

func stateText(it policy.Item) string {
	switch it.Status {
	case policy.StatusScored:
		if it.RiskScore != nil {
			return fmt.Sprintf("%s, score %d", it.Recommendation, *it.RiskScore)
		}
	case policy.StatusError:
		return "failed with " + string(it.ErrorCode)
	case policy.StatusPending:
		return "being analysed"
	case policy.StatusAwaitingFile:
		return "waiting for a new file"
	}
	return "not a valid answer (" + string(policy.CodeInvalidResponse) + ")"
}

// nextRevision is the item's revision after a file request that the
// service accepted with If-Match sent: exactly one change on top of it.
func nextRevision(cached, sent int64) int64 {
	if sent > 0 {
		return sent + 1
	}
	return cached
}

// --- claims --------------------------------------------------------------

// sendable refuses, before anything is written or sent, an item whose id
// the service's paths cannot carry (policy.IDProblem): such an item is
// stored invalid by a sync, and nothing about it can ever be sent.
func sendable(itemID string) error {
	if problem := policy.IDProblem(itemID); problem != "" {
		return policy.Errorf(policy.CodeInvalidInput, "item %q cannot be named to the service (%s); nothing was sent", itemID, problem)
	}
	return nil
}

func (s *Service) notOfferedLocally(what string) error {
	if s.APIVersion() == "1.0" {
		return policy.Errorf(policy.CodeNotOffered, "this service does not offer %s (it speaks contract 1.0)", what)
	}
	return nil
}

// offline says what being unable to reach the API means for a claim.
func offlineClaim(op, itemID string, err error) error {
	e, ok := client.AsError(err)
	if !ok {
		return err
	}
	switch e.Class {
	case client.ClassAnsweredNo, client.ClassRateLimited:
		return err
	case client.ClassUnknown, client.ClassBadAnswer:
		// It may have reached the service (a 2xx that cannot be read was
		// carried out as far as anyone knows). A claim or a release has no
		// key and no place in the outbox, so no flush settles it; doing
		// it again does (a claim renews the reviewer's own, never doubles).
		return fmt.Errorf("the %s may have reached the service; run 'reviewer %s %s' again to settle it (no flush does): %w",
			op, op, itemID, err)
	}
	return fmt.Errorf("no %s is possible offline; a queued action still carries If-Match as its guard: %w", op, err)
}

// Claim claims an item for the reviewer, or renews their claim, for ttl
// (0: the configured length). Another reviewer's claim is a ConflictError
// naming them; the item in the answer is applied either way.
func (s *Service) Claim(ctx context.Context, itemID string, ttl time.Duration) (policy.Item, error) {
	if _, err := s.db.Item(ctx, itemID); err != nil {
		return policy.Item{}, err
	}
	if err := s.notOfferedLocally("claims"); err != nil {
		return policy.Item{}, err
	}
	if err := sendable(itemID); err != nil {
		return policy.Item{}, err
	}
	if ttl == 0 {
		ttl = s.ClaimTTL()
	}
	if err := policy.CheckClaimTTL(ttl); err != nil {
		return policy.Item{}, err
	}
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	it, attempts, err := s.api.Claim(opCtx, itemID, ttl)
	return s.claimOutcome(ctx, itemID, "claim", it, attempts, err)
}

// Release releases the reviewer's claim on an item.
func (s *Service) Release(ctx context.Context, itemID string) (policy.Item, error) {
	if _, err := s.db.Item(ctx, itemID); err != nil {
		return policy.Item{}, err
	}
	if err := s.notOfferedLocally("claims"); err != nil {
		return policy.Item{}, err
	}
	if err := sendable(itemID); err != nil {
		return policy.Item{}, err
	}
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	it, attempts, err := s.api.Release(opCtx, itemID)
	return s.claimOutcome(ctx, itemID, "release", it, attempts, err)
}

func (s *Service) claimOutcome(ctx context.Context, itemID, op string, it policy.Item, attempts []client.Attempt, err error) (policy.Item, error) {
	s.observe(err)
	rctx, cancel := recordCtx(ctx)
	defer cancel()
	_ = s.db.RecordAttempts(rctx, itemID, op, evidence(attempts))
	if err == nil {
		err = s.foreignAnswer(rctx, itemID, it)
	}
	if err == nil {
		detail := "released"
		if it.Claim != nil {
			detail = "until " + policy.UntilText(it.Claim.ExpiresAt, s.now())
		}
		return it, s.db.ApplyItem(rctx, it, s.who(), op+": done", detail)
	}
	if client.IsNotOffered(err) {
		s.setVersion(rctx, "1.0")
		return policy.Item{}, err
	}
	var apply *policy.Item
	var detail string
	err = s.explainConflict(rctx, &apply, &detail, itemID, 0, time.Time{}, err)
	if apply != nil {
		if aerr := s.db.ApplyItem(rctx, *apply, s.who(), op+": refused by the API: "+string(policy.ErrorCode(err)), detail); aerr != nil {
			return policy.Item{}, aerr
		}
		return *apply, err
	}
	return policy.Item{}, offlineClaim(op, itemID, err)
}

// NextResult is the item Next picked, and whether it is the reviewer's.
type NextResult struct {
	Item    *ItemView // nil: nothing needs a reviewer that nobody else holds
	Claimed bool
	Why     string // for the reviewer: the claim, or why there is none
	// ClaimErr is why the claim could not be made when the service could
	// not be reached or did not answer (the item is picked from the cache,
	// not claimed); nil when claimed, or when the service offers no claims.
	ClaimErr error
}

// Next claims and returns the oldest item (by status_since) that needs a
// reviewer and that nobody else holds, skipping the ones another reviewer
// claimed meanwhile. With a 1.0 service, or offline, it picks from the
// cache and says it could not claim.
func (s *Service) Next(ctx context.Context) (NextResult, error) {
	ids, err := s.db.NextCandidates(ctx, s.who(), s.now(), 50)
	if err != nil {
		return NextResult{}, err
	}
	for _, id := range ids {
		if s.APIVersion() == "1.0" {
			return s.picked(ctx, id, false, "this service does not offer claims: picked from the cache, not claimed")
		}
		it, err := s.Claim(ctx, id, 0)
		switch {
		case err == nil:
			return s.picked(ctx, id, true, "claimed until "+policy.UntilText(it.Claim.ExpiresAt, s.now()))
		case policy.ErrorCode(err) == policy.CodeClaimed:
			continue // someone else took it meanwhile: the cache knows now
		case client.IsNotOffered(err):
			return s.picked(ctx, id, false, "this service does not offer claims: picked from the cache, not claimed")
		}
		if e, ok := client.AsError(err); ok && e.Class != client.ClassAnsweredNo {
			res, perr := s.picked(ctx, id, false, "not claimed: "+policy.ErrorMessage(err))
			res.ClaimErr = err
			return res, perr
		}
		return NextResult{}, err
	}
	return NextResult{Why: "nothing needs a reviewer that nobody else holds"}, nil
}

func (s *Service) picked(ctx context.Context, id string, claimed bool, why string) (NextResult, error) {
	d, err := s.Item(ctx, id)
	if err != nil {
		return NextResult{}, err
	}
	return NextResult{Item: &d.ItemView, Claimed: claimed, Why: why}, nil
}

// --- notes ---------------------------------------------------------------

// NoteResult is a note that was written to the notes outbox.
type NoteResult struct {
	Note store.NoteRow
	Err  error // why it is not done yet (or failed): the client's error
}

// AddNote writes a note on an item and sends it. Offline it stays queued
// and a flush sends it, once, with its own key.
func (s *Service) AddNote(ctx context.Context, itemID, text string) (NoteResult, error) {
	t, err := policy.CheckNoteText(text)
	if err != nil {
		return NoteResult{}, policy.Errorf(policy.CodeInvalidInput, "%s", policy.ErrorMessage(err))
	}
	if err := s.notOfferedLocally("notes"); err != nil {
		return NoteResult{}, err
	}
	if err := sendable(itemID); err != nil {
		return NoteResult{}, err
	}
	n, err := s.db.CreateNote(ctx, store.NoteRow{ItemID: itemID, Key: s.newKey(), Author: s.who(), Text: t})
	if err != nil {
		return NoteResult{}, err
	}
	if f := s.team.afterNoteIntent; f != nil {
		f(n)
	}
	return s.sendNote(ctx, n.ID)
}

func (s *Service) sendNote(ctx context.Context, id int64) (NoteResult, error) {
	n, ok, err := s.db.LeaseNote(ctx, id, s.lease())
	if err != nil || !ok {
		return NoteResult{Note: n}, err
	}
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	remote, attempts, callErr := s.api.AddNote(opCtx, n.ItemID, n.Key, n.Text)
	s.observe(callErr)
	rctx, rcancel := recordCtx(ctx)
	defer rcancel()
	f := store.NoteFinish{On: policy.EventAnswered, Lease: n.Sends, Remote: &remote, Event: "note added", Attempts: evidence(attempts)}
	if callErr != nil {
		o := outcome(nil, callErr)
		f.On, f.Remote, f.ErrCode, f.Err, f.Event = o.On, nil, o.ErrCode, o.Err, "note "+o.Event
		if o.On == policy.EventTurnedAway {
			// Turned away (429, 503, 401, CLAIMED): nothing ran for this
			// request. A note is no verdict and must not be lost, so it
			// meets this as "not sent": a first send waits for the next
			// flush; a reconciling one stays unknown.
			f.On = policy.EventNotSent
		}
		if client.IsNotOffered(callErr) {
			s.setVersion(rctx, "1.0")
		}
		callErr = s.explainConflict(rctx, &f.Item, &f.Err, n.ItemID, 0, time.Time{}, callErr)
	}
	done, err := s.db.FinishNote(rctx, n.ID, f)
	if err != nil {
		return NoteResult{}, err
	}
	if done.State == policy.ActionDone {
		// The note moved the item to a new revision that its answer does
		// not carry: read it, so the reviewer's next action does not meet
		// ITEM_CHANGED over their own note. Best effort; a sync does it too.
		if it, _, err := s.api.GetItem(opCtx, n.ItemID); err == nil && it.ID == n.ItemID {
			_ = s.db.ApplyItem(rctx, it, s.who(), "", "")
		}
	}
	return NoteResult{Note: done, Err: callErr}, nil
}

// flushNotes sends the notes outbox, oldest first, each with its key.
func (s *Service) flushNotes(ctx context.Context, fr *FlushResult) error {
	pending, err := s.db.PendingNotes(ctx)
	if err != nil {
		return err
	}
	for _, n := range pending {
		if ctx.Err() != nil {
			break
		}
		r, err := s.sendNote(ctx, n.ID)
		if err != nil {
			return err
		}
		fr.Notes = append(fr.Notes, r)
	}
	return nil
}

// notesCell is an item's notes in one CSV cell: "author (time): text",
// one per line, oldest first.
func notesCell(notes []store.NoteRow) string {
	var b strings.Builder
	for i, n := range notes {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s (%s): %s", n.Author, n.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), n.Text)
	}
	return b.String()
}
