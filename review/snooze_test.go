package review_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

func TestSnoozeReturnsOnItsDateByItself(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	c := onClock(e, time.Now())
	id := e.srv.FindCode("DECODE_FAILED")
	tuesday := c.t.Add(4 * 24 * time.Hour)
	if err := e.svc.Triage.Snooze(ctx, id, tuesday, "the customer sends a new scan on Tuesday"); err != nil {
		t.Fatal(err)
	}
	needs := func() []review.ItemView {
		items, err := e.svc.Triage.Items(ctx, store.ItemFilter{NeedsAction: true})
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	snoozed, _ := e.svc.Triage.Items(ctx, e.svc.Triage.ItemFilter(review.ViewFilter{Snoozed: true}))
	if has(needs(), id) || len(snoozed) != 1 || snoozed[0].ID != id || !snoozed[0].Snoozed || snoozed[0].SnoozeReason == "" {
		t.Fatalf("while snoozed: in needs-action %v, snoozed filter %d", has(needs(), id), len(snoozed))
	}
	c.t = tuesday.Add(-time.Second)
	if has(needs(), id) {
		t.Fatal("back a second early")
	}
	c.t = tuesday
	if !has(needs(), id) {
		t.Fatal("not back on its date")
	}
	if snoozed, _ := e.svc.Triage.Items(ctx, e.svc.Triage.ItemFilter(review.ViewFilter{Snoozed: true})); len(snoozed) != 0 {
		t.Fatalf("still in the snoozed filter: %d", len(snoozed))
	}
	if woken, err := e.svc.Triage.WakeDue(ctx); err != nil || len(woken) != 1 || woken[0] != id {
		t.Fatalf("%v %v", woken, err)
	}
	d, _ := e.svc.Triage.Item(ctx, id)
	if len(d.Audit) < 2 || d.Audit[0].Event != "snooze ended: the date came" || d.Audit[1].Reviewer != e.svc.Team.Reviewer() {
		t.Fatalf("audit %+v", d.Audit)
	}
}
