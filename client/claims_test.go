package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

func TestClaimReleaseAndClaimed(t *testing.T) {
	srv, ana, ben := setupTeam(t, "")
	ctx := context.Background()
	id := srv.FindCode("INTERNAL_ERROR")
	it, _, err := ana.Claim(ctx, id, 15*time.Minute)
	if err != nil || it.Claim == nil || it.Claim.Reviewer != "ana" || time.Until(it.Claim.ExpiresAt) < 14*time.Minute {
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
