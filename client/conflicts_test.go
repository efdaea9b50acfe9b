package client_test

import (
	"context"
	"testing"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

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
