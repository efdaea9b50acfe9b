package review_test

import (
	"context"
	"testing"
)

// An uploaded replacement (an identity document) does not outlive its
// action in the cache: only its hash and size stay.
func TestReplacementFileIsDeletedWhenDoneOrCancelled(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	pdf := []byte("%PDF-1.7\n% a passport scan")

	done := e.srv.FindCode("DECODE_FAILED")
	res, err := e.svc.Replace(ctx, done, "passport.pdf", pdf)
	if err != nil || res.Action.State != "done" {
		t.Fatalf("replace: %+v %v", res.Action, err)
	}
	d, err := e.db.ActionFileDigest(ctx, res.Action.ID)
	if err != nil || d.Held || d.Size != int64(len(pdf)) || len(d.SHA256) != 64 {
		t.Fatalf("done: %+v %v", d, err)
	}

	queued := e.srv.FindCode("UNSUPPORTED_MEDIA_TYPE")
	e.srv.Refuse()
	res, err = e.svc.Replace(ctx, queued, "passport.pdf", pdf)
	if err != nil || res.Action.State != "queued" {
		t.Fatalf("replace offline: %+v %v", res.Action, err)
	}
	if d, _ := e.db.ActionFileDigest(ctx, res.Action.ID); !d.Held {
		t.Fatal("a queued replacement lost its file")
	}
	if _, err := e.svc.Cancel(ctx, res.Action.ID); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.db.ActionFileDigest(ctx, res.Action.ID); d.Held || d.Size != int64(len(pdf)) {
		t.Fatalf("cancelled: %+v", d)
	}
}
