package review_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

func TestAgeAndBandInEveryRow(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	c := onClock(e, time.Now())
	items, err := e.svc.Triage.Items(ctx, store.ItemFilter{})
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
	d, _ := e.svc.Triage.Item(ctx, id)
	if d.Band != "" {
		t.Fatalf("an error with a band %q", d.Band)
	}
	c.t = d.EnteredStatus.Add(6 * 24 * time.Hour)
	d, _ = e.svc.Triage.Item(ctx, id)
	if d.AgeLevel != policy.AgeOverdue || d.Age != "6 d · overdue" {
		t.Fatalf("age %q %s", d.Age, d.AgeLevel)
	}
	overdue, _ := e.svc.Triage.Items(ctx, e.svc.Triage.ItemFilter(review.ViewFilter{Overdue: true, SortBy: "since"}))
	if !has(overdue, id) {
		t.Fatal("an overdue item is not in the overdue view")
	}
	for i := 1; i < len(overdue); i++ {
		if overdue[i].EnteredStatus.Before(overdue[i-1].EnteredStatus) || overdue[i].Status == policy.StatusScored {
			t.Fatal("the overdue view is not oldest first, or holds a scored item")
		}
	}
	ages, _ := e.svc.Triage.OldestWaiting(ctx, []string{d.BatchID})
	if ages[d.BatchID].AgeLevel != policy.AgeOverdue {
		t.Fatalf("batch age %+v", ages[d.BatchID])
	}
	// A re-submission that scores the item starts a new age, with a band.
	// It runs on the real clock: a call's deadline is taken from the
	// workflow's clock, and six days after the seeded data (2026-11-29)
	// is already past on the day the tests run.
	c.t = time.Now()
	if res, err := e.svc.Actions.Resubmit(ctx, id); err != nil || res.Action.State != policy.ActionDone {
		t.Fatal(res, err)
	}
	d, _ = e.svc.Triage.Item(ctx, id)
	if d.Status != policy.StatusScored || d.Band == "" || d.AgeLevel != policy.AgeFresh || !d.EnteredStatus.After(c.t.Add(-7*24*time.Hour)) {
		t.Fatalf("after the re-run: %s band %q age %q", d.Status, d.Band, d.Age)
	}
	// Configured bands and thresholds apply; nonsense is refused.
	e.with(t, func(c *review.Config) {
		c.Triage = review.TriageSettings{Bands: policy.Bands{Medium: 1, High: 2, Critical: 3}, Ageing: policy.DefaultAgeing()}
	})
	if d, _ = e.svc.Triage.Item(ctx, id); *d.RiskScore >= 3 && d.Band != policy.BandCritical {
		t.Fatalf("custom bands: %d is %s", *d.RiskScore, d.Band)
	}
	if _, err := e.svc.With(func(c *review.Config) {
		c.Triage = review.TriageSettings{Bands: policy.Bands{Medium: 50, High: 40, Critical: 90}, Ageing: policy.DefaultAgeing()}
	}); err == nil {
		t.Fatal("falling bands accepted")
	}
}

// A batch's counts by band follow the bands in force: the store holds no
// bands of its own, review passes them with every listing of batches.
func TestBatchesCountByTheBandsInForce(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	index := map[policy.Band]int{policy.BandLow: 0, policy.BandMedium: 1, policy.BandHigh: 2, policy.BandCritical: 3}
	for _, bands := range []policy.Bands{policy.DefaultBands(), {Medium: 1, High: 2, Critical: 3}, {Medium: 95, High: 98, Critical: 99}} {
		e.with(t, func(c *review.Config) { c.Triage = review.TriageSettings{Bands: bands, Ageing: policy.DefaultAgeing()} })
		items, err := e.svc.Triage.Items(ctx, store.ItemFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var want [4]int
		for _, it := range items {
			if b, ok := bands.Of(it.Item); ok {
				want[index[b]]++
			}
		}
		if want == [4]int{} {
			t.Fatal("no scored item in the reference data")
		}
		bs, err := e.svc.Triage.Batches(ctx, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		var got [4]int
		for _, b := range bs {
			for i, n := range b.Bands {
				got[i] += n
			}
		}
		if got != want {
			t.Errorf("bands %+v: batches count %v, items %v", bands, got, want)
		}
	}
}
