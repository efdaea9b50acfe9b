package review_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
)

// An uploaded replacement (an identity document) does not outlive its
// action in the cache: only its hash and size stay.
func TestReplacementFileIsDeletedWhenDoneOrCancelled(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	pdf := screenapi.Scan(2 << 10) // a passport scan

	done := e.srv.FindCode("DECODE_FAILED")
	res, err := e.svc.Actions.Replace(ctx, done, "passport.png", pdf, review.ReplaceOptions{})
	if err != nil || res.Action.State != "done" {
		t.Fatalf("replace: %+v %v", res.Action, err)
	}
	d, err := e.db.Files.ActionFileDigest(ctx, res.Action.ID)
	if err != nil || d.Held || d.Size != int64(len(pdf)) || len(d.SHA256) != 64 {
		t.Fatalf("done: %+v %v", d, err)
	}

	queued := e.srv.FindCode("UNSUPPORTED_MEDIA_TYPE")
	e.srv.Refuse()
	res, err = e.svc.Actions.Replace(ctx, queued, "passport.png", pdf, review.ReplaceOptions{})
	if err != nil || res.Action.State != "queued" {
		t.Fatalf("replace offline: %+v %v", res.Action, err)
	}
	if d, _ := e.db.Files.ActionFileDigest(ctx, res.Action.ID); !d.Held {
		t.Fatal("a queued replacement lost its file")
	}
	if _, err := e.svc.Actions.Cancel(ctx, res.Action.ID); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.db.Files.ActionFileDigest(ctx, res.Action.ID); d.Held || d.Size != int64(len(pdf)) {
		t.Fatalf("cancelled: %+v", d)
	}
}

// A replacement that ended without running (the service turned it away)
// keeps its file: uploading it again needs no new file from the customer,
// goes out with a new key, and sends the same bytes. Discarding and the
// retention remove a kept file.
func TestAFailedReplacementKeepsItsFileForAnotherTry(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	pdf := screenapi.Scan(3 << 10) // a passport scan, sent by the customer
	id := e.srv.FindCode("DECODE_FAILED")
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPReplacement, Times: 1})
	first, err := e.svc.Actions.Replace(ctx, id, "passport.png", pdf, review.ReplaceOptions{})
	if err != nil || first.Action.State != policy.ActionFailed {
		t.Fatalf("replace: %+v %v", first.Action, err)
	}
	if d, _ := e.db.Files.ActionFileDigest(ctx, first.Action.ID); !d.Held {
		t.Fatal("a replacement that ran nothing lost the customer's file")
	}
	if d, err := e.svc.Triage.Item(ctx, id); err != nil || d.KeptFile != "passport.png" {
		t.Fatalf("the item's detail names no kept file: %q %v", d.KeptFile, err)
	}
	again, err := e.svc.Actions.ReplaceAgain(ctx, id, review.ReplaceOptions{})
	if err != nil || again.Action.State != policy.ActionDone || again.Action.Key == first.Action.Key {
		t.Fatalf("again: %+v %v", again.Action, err)
	}
	ups := e.srv.Uploads(id)
	sum := sha256.Sum256(pdf)
	if len(ups) != 1 || ups[0].SHA256 != hex.EncodeToString(sum[:]) || ups[0].Size != len(pdf) {
		t.Fatalf("uploads %+v", ups)
	}
	if d, _ := e.db.Files.ActionFileDigest(ctx, first.Action.ID); d.Held {
		t.Fatal("the failed replacement still holds the file after it went out again")
	}
	if _, err := e.svc.Actions.ReplaceAgain(ctx, id, review.ReplaceOptions{}); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("no kept file left: %v", err)
	}

	// Discarded by the reviewer, or removed by the retention.
	other := e.srv.FindCode("UNSUPPORTED_MEDIA_TYPE")
	third := e.srv.FindCode("PAYLOAD_TOO_LARGE")
	for _, it := range []string{other, third} {
		e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPReplacement, Times: 1})
		if r, err := e.svc.Actions.Replace(ctx, it, "scan.png", pdf, review.ReplaceOptions{}); err != nil || r.Action.State != policy.ActionFailed {
			t.Fatalf("%+v %v", r.Action, err)
		}
	}
	k, err := e.svc.Actions.DiscardKeptFile(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := e.db.Files.ActionFileDigest(ctx, k.ActionID); d.Held {
		t.Fatal("discarded, yet held")
	}
	e.with(t, func(c *review.Config) { c.KeptFileRetention = time.Hour })
	e.svc.SetClock(func() time.Time { return time.Now().Add(2 * time.Hour) })
	if _, err := e.svc.Actions.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Actions.KeptFile(ctx, third); err == nil {
		t.Fatal("the retention left a kept file")
	}
}
