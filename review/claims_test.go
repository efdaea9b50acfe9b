package review_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

func TestAClaimRefusesOthersAndExpires(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	it, err := tm.ana.svc.Team.Claim(ctx, id, 0)
	if err != nil || it.Claim == nil || it.Claim.Reviewer != "ana" || it.Claim.ExpiresAt.Sub(tm.clk.Now()) > 15*time.Minute || it.Claim.ExpiresAt.Sub(tm.clk.Now()) < 14*time.Minute {
		t.Fatalf("%+v %v", it.Claim, err)
	}
	until := policy.UntilText(it.Claim.ExpiresAt, tm.clk.Now())
	// Ben has not synced: the service refuses, and his cache learns the claim.
	res, err := tm.ben.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionFailed {
		t.Fatalf("%+v %v", res, err)
	}
	if ce := conflict(t, res.Err, policy.CodeClaimed); ce.Sentence != "Ana is on this until "+until {
		t.Fatalf("sentence %q", ce.Sentence)
	}
	// Now his cache knows: refused before any call.
	arrivals := tm.srv.Arrivals(screenapi.EPResubmit)
	_, err = tm.ben.svc.Actions.Resubmit(ctx, id)
	if ce := conflict(t, err, policy.CodeClaimed); !strings.Contains(ce.Sentence, "Ana is on this until "+until) {
		t.Fatalf("sentence %q", ce.Sentence)
	}
	if _, err := tm.ben.svc.Team.Claim(ctx, id, 0); policy.ErrorCode(err) != policy.CodeClaimed {
		t.Fatalf("claim: %v", err)
	}
	if tm.srv.Arrivals(screenapi.EPResubmit) != arrivals || tm.srv.Analyses(id) != 0 {
		t.Fatal("a refused action reached the API")
	}
	// Next skips what ana holds.
	if n, err := tm.ben.svc.Team.Next(ctx); err != nil || n.Item == nil || n.Item.ID == id || !n.Claimed {
		t.Fatalf("next: %+v %v", n, err)
	}
	// The claim expires: an expired claim is no claim.
	tm.clk.Add(15*time.Minute + time.Second)
	// Her cache still holds the claim; its view is judged on the workflow's
	// clock, which is past it (the wall clock is not).
	before := tm.clk.Now()
	d, err := tm.ana.svc.Triage.Item(ctx, id)
	if err != nil || d.Claim == nil || d.At.Before(before) || d.At.After(tm.clk.Now()) || d.LiveClaim(d.At) != nil || !d.HeldBy("ana", time.Now()) {
		t.Fatalf("the view of an expired claim at %v: %+v %v", d.At, d.Claim, err)
	}
	res, err = tm.ben.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionDone || tm.srv.Analyses(id) != 1 {
		t.Fatalf("after expiry: %+v %v analyses %d", res, err, tm.srv.Analyses(id))
	}
	// Ana may release a claim of hers; releasing is recorded.
	other := tm.srv.FindCode("INTERNAL_ERROR")
	if _, err := tm.ana.svc.Team.Claim(ctx, other, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	// Her own claim is no obstacle to her own action.
	if res, err := tm.ana.svc.Actions.Resubmit(ctx, other); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ana on her own claim: %+v %v", res, err)
	}
	if it, err := tm.ana.svc.Team.Release(ctx, other); err != nil || it.Claim != nil || tm.srv.ClaimOf(other) != "" {
		t.Fatalf("release: %+v %v", it.Claim, err)
	}
	if _, err := tm.ana.svc.Team.Claim(ctx, other, 10*time.Second); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a 10 s claim: %v", err)
	}
}

func TestNextTakesTheOldestNobodyHolds(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	first, err := tm.ana.svc.Team.Next(ctx)
	if err != nil || first.Item == nil || !first.Claimed || tm.srv.ClaimOf(first.Item.ID) != "ana" {
		t.Fatalf("%+v %v", first, err)
	}
	// Ben has not synced ana's claim: his Next meets 409 on the same item,
	// skips it, and claims the one after.
	second, err := tm.ben.svc.Team.Next(ctx)
	if err != nil || second.Item == nil || second.Item.ID == first.Item.ID || tm.srv.ClaimOf(second.Item.ID) != "ben" {
		t.Fatalf("%+v %v", second, err)
	}
	if !second.Item.StatusSince.After(first.Item.StatusSince) && !(second.Item.StatusSince.Equal(first.Item.StatusSince) && second.Item.ID > first.Item.ID) {
		t.Fatalf("not oldest first: %s %v then %s %v", first.Item.ID, first.Item.StatusSince, second.Item.ID, second.Item.StatusSince)
	}
	// Offline: picked from the cache, not claimed, and said so.
	tm.srv.Refuse()
	off, err := tm.ben.svc.Team.Next(ctx)
	if err != nil || off.Item == nil || off.Claimed || !strings.Contains(off.Why, "not claimed") ||
		policy.ErrorCode(off.ClaimErr) != policy.CodeAPIUnreachable {
		t.Fatalf("offline next: %+v %v", off, err)
	}
}

// Her own claim, taken and renewed while her re-submission's outcome is
// unknown (the window keeps the item hers while her intent is open), does
// not stop that re-submission: claims move no revision, so the reconciling
// send with the same key and If-Match runs, once.
func TestHerClaimDoesNotStopHerUnknownAction(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("SOURCE_UNREACHABLE")
	rev := tm.srv.Revision(id)
	// The request reaches the service, which drops it unread: no key, no run.
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultReset, Endpoint: screenapi.EPResubmit, Times: 1})
	res, err := tm.ana.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionUnknown {
		t.Fatalf("%+v %v", res, err)
	}
	for range 2 { // taken, then renewed
		if _, err := tm.ana.svc.Team.Claim(ctx, id, 0); err != nil {
			t.Fatal(err)
		}
		tm.clk.Add(time.Minute)
	}
	if tm.srv.Revision(id) != rev {
		t.Fatalf("claims moved the revision from %d to %d", rev, tm.srv.Revision(id))
	}
	fr, err := tm.ana.svc.Actions.Flush(ctx)
	if err != nil || fr.Done != 1 || fr.Failed != 0 {
		t.Fatalf("%+v %v", fr, err)
	}
	if got := fr.Results[0].Action; got.Key != res.Action.Key || tm.srv.Analyses(id) != 1 {
		t.Fatalf("sent with key %s (queued with %s), %d analyses", got.Key, res.Action.Key, tm.srv.Analyses(id))
	}
}
