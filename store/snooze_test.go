package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

func TestSnoozeComesBackByItselfAndIsAudited(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	now := t0
	db.SetClock(func() time.Time { return now })
	db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0,
		failed("i1", "b1", policy.CodeInternal, t0), failed("i2", "b1", policy.CodeDecodeFailed, t0))})
	ids := func(f store.ItemFilter) []string {
		rows, err := db.Items.Items(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.ID)
		}
		return out
	}
	tuesday := t0.Add(72 * time.Hour)
	if err := db.Triage.Snooze(ctx, "i1", tuesday, "  ", "ana"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a snooze without a reason: %v", err)
	}
	if err := db.Triage.Snooze(ctx, "i1", t0.Add(-time.Minute), "x", "ana"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a snooze in the past: %v", err)
	}
	if err := db.Triage.Snooze(ctx, "i1", tuesday, "customer calls back Tuesday", "ana"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ids(store.ItemFilter{NeedsAction: true})); got != "[i2]" {
		t.Fatalf("needs action while snoozed: %s", got)
	}
	if got := fmt.Sprint(ids(store.ItemFilter{TriageFilter: store.TriageFilter{Snoozed: true}})); got != "[i1]" {
		t.Fatalf("snoozed filter: %s", got)
	}
	if woken, _ := db.Triage.WakeDue(ctx); len(woken) != 0 {
		t.Fatalf("woken early: %v", woken)
	}
	// Only the listed items (the news of a sync), and with another filter.
	if got := fmt.Sprint(ids(store.ItemFilter{TriageFilter: store.TriageFilter{IDs: []string{"i2", "nope"}}})); got != "[i2]" {
		t.Fatalf("ids filter: %s", got)
	}
	if got := ids(store.ItemFilter{NeedsAction: true, TriageFilter: store.TriageFilter{IDs: []string{"i1"}}}); len(got) != 0 {
		t.Fatalf("ids filter with needs action, i1 snoozed: %v", got)
	}
	if got := ids(store.ItemFilter{TriageFilter: store.TriageFilter{IDs: []string{}}}); len(got) != 0 {
		t.Fatalf("an empty ids filter keeps %v", got)
	}
	now = tuesday // the date comes
	if got := fmt.Sprint(ids(store.ItemFilter{NeedsAction: true})); got != "[i1 i2]" {
		t.Fatalf("needs action on the date: %s", got)
	}
	if got := ids(store.ItemFilter{TriageFilter: store.TriageFilter{Snoozed: true}}); len(got) != 0 {
		t.Fatalf("still snoozed: %v", got)
	}
	if woken, _ := db.Triage.WakeDue(ctx); fmt.Sprint(woken) != "[i1]" {
		t.Fatalf("woken %v", woken)
	}
	audit, _ := db.Evidence.ItemAudit(ctx, "i1")
	if len(audit) != 2 || audit[0].Event != "snooze ended: the date came" || audit[1].Detail != "customer calls back Tuesday" {
		t.Fatalf("audit %+v", audit)
	}
	if err := db.Triage.Wake(ctx, "i1", "ana"); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("waking an item not snoozed: %v", err)
	}
}
