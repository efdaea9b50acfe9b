package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

const anaToken, benToken = "tok-ana-0123456789", "tok-ben-0123456789"

// setupTeam starts a service that knows ana and ben, and a client for each.
func setupTeam(t *testing.T, version string) (*screenapi.Server, *client.Client, *client.Client) {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: version, Reviewers: []screenapi.Reviewer{
		{Name: "ana", DisplayName: "Ana Lima", Token: anaToken}, {Name: "ben", DisplayName: "Ben Okafor", Token: benToken}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	mk := func(tok string) *client.Client {
		cfg := testConfig(srv.URL())
		cfg.Token = client.Secret(tok)
		c, err := client.New(cfg, client.WithSleep((&sleeper{}).sleep))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	return srv, mk(anaToken), mk(benToken)
}

func TestMe(t *testing.T) {
	_, ana, ben := setupTeam(t, "")
	ctx := context.Background()
	if id, _, err := ana.Me(ctx); err != nil || id.Reviewer != "ana" || id.DisplayName != "Ana Lima" {
		t.Fatalf("%+v %v", id, err)
	}
	if id, _, err := ben.Me(ctx); err != nil || id.Reviewer != "ben" {
		t.Fatalf("%+v %v", id, err)
	}
}

func TestIfMatchAndItsRefusal(t *testing.T) {
	srv, ana, ben := setupTeam(t, "")
	ctx := context.Background()
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	it, _, err := ana.Resubmit(ctx, id, "k-ana", client.IfMatch(1))
	if err != nil || it.Revision != 2 || it.Status != policy.StatusScored {
		t.Fatalf("%+v %v", it, err)
	}
	_, _, err = ben.Resubmit(ctx, id, "k-ben", client.IfMatch(1))
	e := mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeItemChanged)
	if e.HTTPStatus != 412 || e.Item == nil || e.Item.Revision != 2 || *e.Item.RiskScore != *it.RiskScore {
		t.Fatalf("412 must carry the item as it is now: %+v", e)
	}
	if c, ok := client.AsConflict(err); !ok || c != e {
		t.Fatal("AsConflict")
	}
	if srv.Analyses(id) != 1 {
		t.Fatalf("analyses %d", srv.Analyses(id))
	}
}

func TestClaimReleaseAndClaimed(t *testing.T) {
	srv, ana, ben := setupTeam(t, "")
	ctx := context.Background()
	id := srv.FindCode("INTERNAL_ERROR")
	it, _, err := ana.Claim(ctx, id, 15*time.Minute)
	if err != nil || it.Claim == nil || it.Claim.Reviewer != "ana" || it.Claim.ExpiresAt.Sub(time.Now()) < 14*time.Minute {
		t.Fatalf("%+v %v", it.Claim, err)
	}
	for name, call := range map[string]func() error{
		"claim":    func() error { _, _, err := ben.Claim(ctx, id, time.Minute); return err },
		"release":  func() error { _, _, err := ben.Release(ctx, id); return err },
		"resubmit": func() error { _, _, err := ben.Resubmit(ctx, id, "kb", client.IfMatch(it.Revision)); return err },
	} {
		e := mustClientErr(t, call(), client.ClassAnsweredNo, policy.CodeClaimed)
		if e.HTTPStatus != 409 || e.Item == nil || e.Item.Claim == nil || e.Item.Claim.Reviewer != "ana" {
			t.Fatalf("%s: %+v", name, e)
		}
	}
	// A note is accepted whoever holds the item (contract 1.1, amended).
	if n, _, err := ben.AddNote(ctx, id, "kn", "hello"); err != nil || n.Author != "ben" {
		t.Fatalf("ben's note on ana's item: %+v %v", n, err)
	}
	if it, _, err = ana.Release(ctx, id); err != nil || it.Claim != nil {
		t.Fatalf("release: %+v %v", it.Claim, err)
	}
	if _, _, err := ben.Claim(ctx, id, time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestAddNoteOnce(t *testing.T) {
	srv, _, ben := setupTeam(t, "")
	ctx := context.Background()
	id := srv.FindCode("DECODE_FAILED")
	n, _, err := ben.AddNote(ctx, id, "note-key", "Customer called, new scan coming.")
	if err != nil || n.Author != "ben" || n.ID == "" || n.CreatedAt.IsZero() {
		t.Fatalf("%+v %v", n, err)
	}
	again, _, err := ben.AddNote(ctx, id, "note-key", "Customer called, new scan coming.")
	if err != nil || again.ID != n.ID || len(srv.Notes(id)) != 1 {
		t.Fatalf("a repeat with the same key adds no second note: %+v %v", again, err)
	}
	_, _, err = ben.AddNote(ctx, id, "other", "  ")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeValidationFailed)
	// An answer lost after the note was made is unknown, not retried.
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPNote, Times: 1})
	_, _, err = ben.AddNote(ctx, id, "lost", "second")
	mustClientErr(t, err, client.ClassUnknown, policy.CodeOutcomeUnknown)
	if srv.Arrivals(screenapi.EPNote) != 4 || len(srv.Notes(id)) != 2 {
		t.Fatalf("arrivals %d notes %d", srv.Arrivals(screenapi.EPNote), len(srv.Notes(id)))
	}
	if _, _, err := ben.AddNote(ctx, id, "", "x"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a note without its stored key must not be sent: %v", err)
	}
}

func TestVersion10IsNotOffered(t *testing.T) {
	srv, ana, _ := setupTeam(t, screenapi.Version10)
	ctx := context.Background()
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	_, _, err := ana.Me(ctx)
	if !client.IsNotOffered(err) || policy.ErrorCode(err) != policy.CodeNotOffered {
		t.Fatalf("me: %v", err)
	}
	_, _, err = ana.Claim(ctx, id, time.Minute)
	if !client.IsNotOffered(err) {
		t.Fatalf("claim: %v", err)
	}
	_, _, err = ana.Release(ctx, id)
	if !client.IsNotOffered(err) {
		t.Fatalf("release: %v", err)
	}
	_, _, err = ana.AddNote(ctx, id, "k", "x")
	if !client.IsNotOffered(err) {
		t.Fatalf("note: %v", err)
	}
	it, _, err := ana.GetItem(ctx, id)
	if err != nil || it.Revision != 0 || it.Claim != nil || !it.StatusSince.IsZero() {
		t.Fatalf("a 1.0 item: %+v %v", it, err)
	}
}

func TestClaimedAnswerIsNotRetriedAndCarriesTheItem(t *testing.T) {
	// A claim is a PUT: the same connection-level rule holds, one retry
	// when nothing was written, none after an answer.
	ws := newWireService(t, 409, `{"error_code":"CLAIMED","error_message":"ben holds it","item":{"id":"itm_1","batch_id":"b","status":"pending","revision":5,"claim":{"reviewer":"ben","expires_at":"2026-11-29T10:19:00Z"}}}`)
	_, as, err := ws.client(t).Claim(context.Background(), "itm_1", time.Minute)
	e := mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeClaimed)
	if len(as) != 1 || e.Item == nil || e.Item.Claim.Reviewer != "ben" || e.Item.Revision != 5 {
		t.Fatalf("%d attempts, %+v", len(as), e)
	}
}
