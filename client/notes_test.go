package client_test

import (
	"context"
	"testing"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

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
