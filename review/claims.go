package review

import (
	"context"
	"fmt"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// A reviewer's claim on an item (contract 1.1): claim, renew, release, and
// Next, which claims the oldest item nobody else holds.

// ClaimTTL is how long a claim lasts.
func (s *TeamService) ClaimTTL() time.Duration {
	s.team.mu.Lock()
	defer s.team.mu.Unlock()
	return s.team.claimTTL
}

// ClaimAway is how long the reviewer is gone before the window lets go
// of a claim held only because she looks at an item (policy.DecideClaim).
func (s *TeamService) ClaimAway() time.Duration {
	s.team.mu.Lock()
	defer s.team.mu.Unlock()
	if s.team.claimAway == 0 {
		return policy.DefaultClaimAway
	}
	return s.team.claimAway
}

// claimSentence names who holds an item until when, with the date when the
// claim does not end today (policy.UntilText).
func claimSentence(c policy.Claim, now time.Time) string {
	return fmt.Sprintf("%s is on this until %s", titled(c.Reviewer), policy.UntilText(c.ExpiresAt, now))
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
func (s *TeamService) Claim(ctx context.Context, itemID string, ttl time.Duration) (policy.Item, error) {
	if _, err := s.db.Items.Item(ctx, itemID); err != nil {
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
func (s *TeamService) Release(ctx context.Context, itemID string) (policy.Item, error) {
	if _, err := s.db.Items.Item(ctx, itemID); err != nil {
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

func (s *core) claimOutcome(ctx context.Context, itemID, op string, it policy.Item, attempts []policy.Attempt, err error) (policy.Item, error) {
	s.observe(err)
	rctx, cancel := recordCtx(ctx)
	defer cancel()
	_ = s.db.Evidence.RecordAttempts(rctx, itemID, op, attempts)
	if err == nil {
		err = s.foreignAnswer(rctx, itemID, it)
	}
	if err == nil {
		detail := "released"
		if it.Claim != nil {
			detail = "until " + policy.UntilText(it.Claim.ExpiresAt, s.now())
		}
		return it, s.applyAnswered(rctx, it, s.who(), op+": done", detail)
	}
	if client.IsNotOffered(err) {
		s.setVersion(rctx, "1.0")
		return policy.Item{}, err
	}
	var apply *policy.Item
	var detail string
	err = s.explainConflict(rctx, &apply, &detail, itemID, 0, time.Time{}, err)
	if apply != nil {
		if aerr := s.applyAnswered(rctx, *apply, s.who(), op+": refused by the API: "+string(policy.ErrorCode(err)), detail); aerr != nil {
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
func (s *TeamService) Next(ctx context.Context) (NextResult, error) {
	ids, err := s.db.Team.NextCandidates(ctx, s.who(), s.now(), 50)
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

func (s *core) picked(ctx context.Context, id string, claimed bool, why string) (NextResult, error) {
	d, err := s.item(ctx, id)
	if err != nil {
		return NextResult{}, err
	}
	return NextResult{Item: &d.ItemView, Claimed: claimed, Why: why}, nil
}
