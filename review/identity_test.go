package review_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

func TestMeNamesTheReviewerAndIsKeptForOfflineUse(t *testing.T) {
	tm := setupTeam(t, "")
	if tm.ana.svc.Team.Reviewer() != "ana" || tm.ben.svc.Team.Reviewer() != "ben" {
		t.Fatalf("reviewers %q %q", tm.ana.svc.Team.Reviewer(), tm.ben.svc.Team.Reviewer())
	}
	tm.srv.Refuse()
	again := openConsole(t, tm.srv.URL(), anaTok, tm.ana.path, nil)
	defer again.close()
	if again.svc.Team.Reviewer() != "ana" {
		t.Fatalf("offline, the cache says who: %q", again.svc.Team.Reviewer())
	}
	id, err := again.svc.Team.Identify(context.Background())
	if err == nil || id.Reviewer != "ana" || id.DisplayName != "Ana Lima" || !strings.Contains(id.Source, "cache") {
		t.Fatalf("%+v %v", id, err)
	}
	// The audit records who acted.
	item := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	res, err := again.svc.Actions.Resubmit(context.Background(), item)
	if err != nil || res.Action.Reviewer != "ana" {
		t.Fatalf("%+v %v", res.Action, err)
	}
}

func TestAVersion10ServiceLeavesTeamworkOut(t *testing.T) {
	tm := setupTeam(t, screenapi.Version10)
	ctx := context.Background()
	c := tm.ana
	if c.svc.Team.Reviewer() != "local-name" || c.svc.Team.APIVersion() != "1.0" {
		t.Fatalf("reviewer %q version %q", c.svc.Team.Reviewer(), c.svc.Team.APIVersion())
	}
	id := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	if _, err := c.svc.Team.Claim(ctx, id, 0); policy.ErrorCode(err) != policy.CodeNotOffered || !strings.Contains(err.Error(), "does not offer") {
		t.Fatalf("claim: %v", err)
	}
	if _, err := c.svc.Team.AddNote(ctx, id, "hello"); policy.ErrorCode(err) != policy.CodeNotOffered {
		t.Fatalf("note: %v", err)
	}
	if tm.srv.Arrivals(screenapi.EPClaim)+tm.srv.Arrivals(screenapi.EPNote) != 0 {
		t.Fatal("a call the service cannot answer was made")
	}
	n, err := c.svc.Team.Next(ctx)
	if err != nil || n.Item == nil || n.Claimed || !strings.Contains(n.Why, "does not offer claims") {
		t.Fatalf("next: %+v %v", n, err)
	}
	res, err := c.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionDone || res.Item.Revision != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	// A console that never learnt the version finds out from a 404.
	fresh := openConsole(t, tm.srv.URL(), anaTok, filepath.Join(t.TempDir(), "fresh.db"), nil)
	defer fresh.close()
	if _, err := fresh.svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if fresh.svc.Team.APIVersion() != "1.0" {
		t.Fatalf("version %q", fresh.svc.Team.APIVersion())
	}
}
