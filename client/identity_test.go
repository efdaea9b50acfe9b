package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

func TestMe(t *testing.T) {
	_, ana, ben := setupTeam(t, "")
	ctx := context.Background()
	if id, _, err := ana.Me(ctx); err != nil || id.Reviewer != "ana" || id.DisplayName != "Ana Lima" || id.APIVersion != "1.1" {
		t.Fatalf("%+v %v", id, err)
	}
	if id, _, err := ben.Me(ctx); err != nil || id.Reviewer != "ben" {
		t.Fatalf("%+v %v", id, err)
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
