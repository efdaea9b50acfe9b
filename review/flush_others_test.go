package review_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// TestAFlushWaitsForWhatAnotherProcessIsSending: a flush that finds an
// action another Service (another process) on the same cache is sending
// waits for its outcome and reports it as that process's, done: not busy,
// not unknown, and nothing sent twice.
func TestAFlushWaitsForWhatAnotherProcessIsSending(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	e.srv.Refuse()
	if res, err := e.svc.Actions.Resubmit(ctx, id); err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("%+v %v", res, err)
	}
	if err := e.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	release := e.srv.Hold(id)
	defer release()
	sender := make(chan error, 1)
	go func() {
		fr, err := e.svc.Actions.Flush(ctx)
		if err == nil && fr.Done != 1 {
			t.Errorf("the sender's flush: %+v", fr)
		}
		sender <- err
	}()
	deadline := time.Now().Add(60 * time.Second)
	for e.srv.Arrivals(screenapi.EPResubmit) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the first flush never sent")
		}
		time.Sleep(2 * time.Millisecond)
	}

	db2, api2, other := newService(t, e.srv.URL(), e.path)
	defer db2.Close()
	defer api2.Close()
	fr, err := other.Actions.Flush(ctx)
	if err != nil || len(fr.Busy) != 1 || fr.Sent() != 0 {
		t.Fatalf("a flush beside a held send: %+v %v", fr, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- other.Actions.AwaitOthers(ctx, &fr, time.Now().Add(time.Hour)) }()
	release()
	if err := <-sender; err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if len(fr.Busy) != 0 || fr.Settled != 1 || len(fr.ByOthers) != 1 || fr.ByOthers[0].State != policy.ActionDone ||
		fr.Sent() != 0 || fr.Skipped != 1 {
		t.Fatalf("after waiting: %+v", fr)
	}
	if e.srv.Analyses(id) != 1 || e.srv.Arrivals(screenapi.EPResubmit) != 1 {
		t.Fatalf("%d analyses, %d arrivals", e.srv.Analyses(id), e.srv.Arrivals(screenapi.EPResubmit))
	}

	// Ctrl-C while waiting: what is still held stays busy.
	id2 := e.srv.FindCode("INTERNAL_ERROR")
	release2 := e.srv.Hold(id2)
	defer release2()
	go func() { _, err := e.svc.Actions.Resubmit(ctx, id2); sender <- err }()
	for e.srv.Arrivals(screenapi.EPResubmit) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the second send never arrived")
		}
		time.Sleep(2 * time.Millisecond)
	}
	fr, err = other.Actions.Flush(ctx)
	if err != nil || len(fr.Busy) != 1 {
		t.Fatalf("%+v %v", fr, err)
	}
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	if err := other.Actions.AwaitOthers(stopped, &fr, time.Now().Add(time.Hour)); err != nil || len(fr.Busy) != 1 || fr.Skipped != 1 || fr.Settled != 0 {
		t.Fatalf("stopped waiting: %+v %v", fr, err)
	}
	// So too at the wait's limit.
	if err := other.Actions.AwaitOthers(ctx, &fr, time.Now()); err != nil || len(fr.Busy) != 1 || fr.Skipped != 1 || fr.Settled != 0 {
		t.Fatalf("waited enough: %+v %v", fr, err)
	}
	release2()
	if err := <-sender; err != nil {
		t.Fatal(err)
	}
}
