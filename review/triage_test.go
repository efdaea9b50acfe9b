package review_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// clock is an injected clock the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func onClock(e *env, at time.Time) *clock {
	c := &clock{t: at}
	e.svc.SetClock(c.now)
	e.db.SetClock(c.now)
	return c
}

func has(items []review.ItemView, id string) bool {
	for _, it := range items {
		if it.ID == id {
			return true
		}
	}
	return false
}

func TestSnoozeReturnsOnItsDateByItself(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	c := onClock(e, time.Now())
	id := e.srv.FindCode("DECODE_FAILED")
	tuesday := c.t.Add(4 * 24 * time.Hour)
	if err := e.svc.Snooze(ctx, id, tuesday, "the customer sends a new scan on Tuesday"); err != nil {
		t.Fatal(err)
	}
	needs := func() []review.ItemView {
		items, err := e.svc.Items(ctx, store.ItemFilter{NeedsAction: true})
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	snoozed, _ := e.svc.Items(ctx, e.svc.ItemFilter(review.ViewFilter{Snoozed: true}))
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
	if snoozed, _ := e.svc.Items(ctx, e.svc.ItemFilter(review.ViewFilter{Snoozed: true})); len(snoozed) != 0 {
		t.Fatalf("still in the snoozed filter: %d", len(snoozed))
	}
	if woken, err := e.svc.WakeDue(ctx); err != nil || len(woken) != 1 || woken[0] != id {
		t.Fatalf("%v %v", woken, err)
	}
	d, _ := e.svc.Item(ctx, id)
	if len(d.Audit) < 2 || d.Audit[0].Event != "snooze ended: the date came" || d.Audit[1].Reviewer != e.svc.Reviewer() {
		t.Fatalf("audit %+v", d.Audit)
	}
}

func TestAgeAndBandInEveryRow(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	c := onClock(e, time.Now())
	items, err := e.svc.Items(ctx, store.ItemFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if band, ok := policy.DefaultBands().Of(it.Item); it.Band != band || ok != it.Checked() {
			t.Fatalf("%s %s: band %q", it.ID, it.Status, it.Band)
		}
		if it.EnteredStatus.IsZero() || it.Age == "" {
			t.Fatalf("%s has no age", it.ID)
		}
	}
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	d, _ := e.svc.Item(ctx, id)
	if d.Band != "" {
		t.Fatalf("an error with a band %q", d.Band)
	}
	c.t = d.EnteredStatus.Add(6 * 24 * time.Hour)
	d, _ = e.svc.Item(ctx, id)
	if d.AgeLevel != policy.AgeOverdue || d.Age != "6 d · overdue" {
		t.Fatalf("age %q %s", d.Age, d.AgeLevel)
	}
	overdue, _ := e.svc.Items(ctx, e.svc.ItemFilter(review.ViewFilter{Overdue: true, SortBy: "since"}))
	if !has(overdue, id) {
		t.Fatal("an overdue item is not in the overdue view")
	}
	for i := 1; i < len(overdue); i++ {
		if overdue[i].EnteredStatus.Before(overdue[i-1].EnteredStatus) || overdue[i].Status == policy.StatusScored {
			t.Fatal("the overdue view is not oldest first, or holds a scored item")
		}
	}
	ages, _ := e.svc.OldestWaiting(ctx, []string{d.BatchID})
	if ages[d.BatchID].AgeLevel != policy.AgeOverdue {
		t.Fatalf("batch age %+v", ages[d.BatchID])
	}
	// A re-submission that scores the item starts a new age, with a band.
	if res, err := e.svc.Resubmit(ctx, id); err != nil || res.Action.State != policy.ActionDone {
		t.Fatal(res, err)
	}
	d, _ = e.svc.Item(ctx, id)
	if d.Status != policy.StatusScored || d.Band == "" || d.AgeLevel != policy.AgeFresh || !d.EnteredStatus.After(c.t.Add(-7*24*time.Hour)) {
		t.Fatalf("after the re-run: %s band %q age %q", d.Status, d.Band, d.Age)
	}
	// Configured bands and thresholds apply; nonsense is refused.
	if err := e.svc.SetTriage(review.TriageSettings{Bands: policy.Bands{Medium: 1, High: 2, Critical: 3}, Ageing: policy.DefaultAgeing()}); err != nil {
		t.Fatal(err)
	}
	if d, _ = e.svc.Item(ctx, id); *d.RiskScore >= 3 && d.Band != policy.BandCritical {
		t.Fatalf("custom bands: %d is %s", *d.RiskScore, d.Band)
	}
	if err := e.svc.SetTriage(review.TriageSettings{Bands: policy.Bands{Medium: 50, High: 40, Critical: 90}, Ageing: policy.DefaultAgeing()}); err == nil {
		t.Fatal("falling bands accepted")
	}
}

func TestSavedViews(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	vs, err := e.svc.Views(ctx)
	if err != nil || len(vs) != 2 || vs[0].Name != review.ViewNeedsMyAction || vs[1].Name != review.ViewOverdue {
		t.Fatalf("%+v %v", vs, err)
	}
	timeouts := review.ViewFilter{Code: policy.CodeClassifierTimeout, NeedsAction: true, SortBy: "since"}
	if err := e.svc.SaveView(ctx, "Timeouts today", timeouts); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SaveView(ctx, "overdue", review.ViewFilter{}); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("a saved view took a built-in name: %v", err)
	}
	if err := e.svc.DeleteView(ctx, review.ViewOverdue); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatal(err)
	}
	if err := e.svc.RenameView(ctx, "Timeouts today", "Timeouts"); err != nil {
		t.Fatal(err)
	}
	vs, _ = e.svc.Views(ctx)
	if len(vs) != 3 || vs[2].Name != "Timeouts" || vs[2].Filter != timeouts || vs[2].Builtin {
		t.Fatalf("%+v", vs)
	}
	if err := e.svc.DeleteView(ctx, "Timeouts"); err != nil {
		t.Fatal(err)
	}
	if vs, _ = e.svc.Views(ctx); len(vs) != 2 {
		t.Fatalf("%+v", vs)
	}
}
