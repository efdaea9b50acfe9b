package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

func TestListBatchesPagesAndValidates(t *testing.T) {
	_, c, _, _ := setup(t)
	var batches []policy.Batch
	cursor, pages := "", 0
	for {
		p, _, err := c.ListBatches(context.Background(), time.Time{}, cursor, 10)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		batches = append(batches, p.Batches...)
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if len(batches) < 40 || pages != (len(batches)+9)/10 {
		t.Fatalf("%d batches in %d pages", len(batches), pages)
	}
	seen := map[policy.Status]int{}
	codes := map[policy.Code]int{}
	unknown := 0
	for _, b := range batches {
		for _, it := range b.Items {
			seen[it.Status]++
			codes[it.ErrorCode]++
			if it.Status != policy.StatusScored && (it.RiskScore != nil || it.Recommendation != "") {
				t.Fatalf("item %s is %s but carries a verdict", it.ID, it.Status)
			}
			if it.ErrorCode == policy.CodeInternal && it.ReportedCode != "INTERNAL_ERROR" {
				unknown++
			}
		}
	}
	for _, s := range policy.Statuses() {
		if seen[s] == 0 {
			t.Errorf("no %s item in the seeded data", s)
		}
	}
	for _, c := range policy.ItemCodes() {
		if codes[c] == 0 {
			t.Errorf("no %s item in the seeded data", c)
		}
	}
	if unknown == 0 {
		t.Error("no unknown code in the seeded data")
	}
}

func TestListBatchesBrokenPages(t *testing.T) {
	srv, c, _, _ := setup(t)
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultMalformed, Times: 1})
	_, _, err := c.ListBatches(context.Background(), time.Time{}, "", 10)
	mustClientErr(t, err, client.ClassBadAnswer, policy.CodeInvalidResponse)
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultBrokenItem, Times: 1})
	p, _, err := c.ListBatches(context.Background(), time.Time{}, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Batches) != 1 || p.Batches[0].Items[0].Status != policy.StatusInvalid {
		t.Fatalf("a broken item must come back invalid: %+v", p.Batches)
	}
}

func TestResubmitIdempotency(t *testing.T) {
	srv, c, _, _ := setup(t)
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	first, _, err := c.Resubmit(context.Background(), id, "same-key")
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := c.Resubmit(context.Background(), id, "same-key")
	if err != nil {
		t.Fatal(err)
	}
	if srv.Analyses(id) != 1 || *first.RiskScore != *again.RiskScore {
		t.Fatalf("a repeat with the same key must replay, not re-run: %d analyses", srv.Analyses(id))
	}
	other := srv.FindCode("INTERNAL_ERROR")
	_, _, err = c.Resubmit(context.Background(), other, "same-key")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeIdempotencyKeyReused)

	// A key still running answers 409.
	slow := srv.FindCode("SOURCE_UNREACHABLE")
	srv.SetAnalysisLatency(slow, 500*time.Millisecond)
	done := make(chan error, 1)
	go func() { _, _, err := c.Resubmit(context.Background(), slow, "running"); done <- err }()
	var inUse error
	pollUntil(t, 5*time.Second, func() bool {
		if srv.Running(slow) == 0 {
			return false
		}
		_, _, inUse = c.Resubmit(context.Background(), slow, "running")
		return true
	})
	mustClientErr(t, inUse, client.ClassAnsweredNo, policy.CodeIdempotencyKeyInUse)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if srv.Analyses(slow) != 1 {
		t.Fatalf("analyses %d", srv.Analyses(slow))
	}
}

func TestAnsweredNoKeepsTheCode(t *testing.T) {
	srv, c, _, _ := setup(t)
	_, _, err := c.Resubmit(context.Background(), srv.FindCode("DECODE_FAILED"), "k-nr")
	e := mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeNotRetryable)
	if e.HTTPStatus != 422 || e.ReportedCode != "NOT_RETRYABLE" {
		t.Fatalf("%+v", e)
	}
	_, _, err = c.GetItem(context.Background(), "itm_nope")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeNotFound)
	_, _, err = c.Resubmit(context.Background(), "itm_0001_01", "")
	mustClientErr(t, err, client.ClassNotStarted, policy.CodeInvalidInput)
	if srv.Arrivals(screenapi.EPResubmit) != 1 {
		t.Fatalf("a POST without a key must not be sent")
	}
}

func TestRequestFile(t *testing.T) {
	srv, c, _, _ := setup(t)
	id := srv.FindCode("UNSUPPORTED_MEDIA_TYPE")
	fr, _, err := c.RequestFile(context.Background(), id, "fr-1", policy.CodeUnsupportedMediaType, "please send a JPEG")
	if err != nil || fr.ID == "" || fr.ItemID != id {
		t.Fatalf("%+v %v", fr, err)
	}
	if _, _, err := c.RequestFile(context.Background(), id, "fr-1", policy.CodeUnsupportedMediaType, "please send a JPEG"); err != nil {
		t.Fatal(err)
	}
	if srv.FileRequests(id) != 1 {
		t.Fatalf("file requests %d", srv.FileRequests(id))
	}
	it, _, _ := c.GetItem(context.Background(), id)
	if it.Status != policy.StatusAwaitingFile {
		t.Fatalf("status %s", it.Status)
	}
}

func TestWrongTokenIsUnauthenticated(t *testing.T) {
	_, c, _, _ := setup(t, func(c *client.Config) { c.Token = "wrong" })
	_, _, err := c.GetItem(context.Background(), "itm_0001_01")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeUnauthenticated)
}
