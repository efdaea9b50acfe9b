package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

func TestEnteredStatusIsRecordedWhenTheStatusChanges(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	t1, t2, t3 := t0, t0.Add(time.Hour), t0.Add(2*time.Hour)
	if _, err := db.ApplyPage(ctx, []policy.Batch{batchOf("b1", t1, failed("i1", "b1", policy.CodeInternal, t1))}); err != nil {
		t.Fatal(err)
	}
	entered := func() time.Time {
		r, err := db.Item(ctx, "i1")
		if err != nil {
			t.Fatal(err)
		}
		return r.EnteredStatus
	}
	if got := entered(); !got.Equal(t1) {
		t.Fatalf("first seen: %v", got)
	}
	// The same status, a newer answer (another attempt): the age goes on.
	again := failed("i1", "b1", policy.CodeClassifierTimeout, t2)
	again.Attempt = 2
	db.ApplyPage(ctx, []policy.Batch{batchOf("b1", t2, again)})
	if got := entered(); !got.Equal(t1) {
		t.Fatalf("same status moved the age: %v", got)
	}
	// A new status starts a new age.
	db.ApplyPage(ctx, []policy.Batch{batchOf("b1", t3, scored("i1", "b1", 12, t3))})
	if got := entered(); !got.Equal(t3) {
		t.Fatalf("new status: %v", got)
	}
	// The service's status_since, where given (contract 1.1), wins.
	reported := t3.Add(-30 * time.Minute)
	it := scored("i1", "b1", 12, t3.Add(time.Minute))
	it.StatusSince = reported
	db.ApplyPage(ctx, []policy.Batch{batchOf("b1", t3.Add(time.Minute), it)})
	if got := entered(); !got.Equal(reported) {
		t.Fatalf("reported: %v", got)
	}
	// A new status with its status_since.
	t4 := t3.Add(time.Hour)
	next := failed("i1", "b1", policy.CodeInternal, t4)
	next.StatusSince = t4.Add(-time.Minute)
	db.ApplyPage(ctx, []policy.Batch{batchOf("b1", t4, next)})
	if got := entered(); !got.Equal(t4.Add(-time.Minute)) {
		t.Fatalf("new status, reported: %v", got)
	}
}

func TestSnoozeComesBackByItselfAndIsAudited(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	now := t0
	db.SetClock(func() time.Time { return now })
	db.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0,
		failed("i1", "b1", policy.CodeInternal, t0), failed("i2", "b1", policy.CodeDecodeFailed, t0))})
	ids := func(f store.ItemFilter) []string {
		rows, err := db.Items(ctx, f)
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
	if err := db.Snooze(ctx, "i1", tuesday, "  ", "ana"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a snooze without a reason: %v", err)
	}
	if err := db.Snooze(ctx, "i1", t0.Add(-time.Minute), "x", "ana"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a snooze in the past: %v", err)
	}
	if err := db.Snooze(ctx, "i1", tuesday, "customer calls back Tuesday", "ana"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ids(store.ItemFilter{NeedsAction: true})); got != "[i2]" {
		t.Fatalf("needs action while snoozed: %s", got)
	}
	if got := fmt.Sprint(ids(store.ItemFilter{TriageFilter: store.TriageFilter{Snoozed: true}})); got != "[i1]" {
		t.Fatalf("snoozed filter: %s", got)
	}
	if woken, _ := db.WakeDue(ctx); len(woken) != 0 {
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
	if woken, _ := db.WakeDue(ctx); fmt.Sprint(woken) != "[i1]" {
		t.Fatalf("woken %v", woken)
	}
	audit, _ := db.ItemAudit(ctx, "i1")
	if len(audit) != 2 || audit[0].Event != "snooze ended: the date came" || audit[1].Detail != "customer calls back Tuesday" {
		t.Fatalf("audit %+v", audit)
	}
	if err := db.Wake(ctx, "i1", "ana"); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("waking an item not snoozed: %v", err)
	}
}

func TestOlderThanAndSortBySince(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	now := t0.Add(10 * 24 * time.Hour)
	db.SetClock(func() time.Time { return now })
	db.ApplyPage(ctx, []policy.Batch{
		batchOf("b1", t0, failed("old", "b1", policy.CodeInternal, t0), scored("done", "b1", 5, t0)),
		batchOf("b2", now.Add(-time.Hour), failed("new", "b2", policy.CodeInternal, now.Add(-time.Hour))),
		batchOf("b3", t0.Add(24*time.Hour), failed("mid", "b3", policy.CodeDecodeFailed, t0.Add(24*time.Hour))),
	})
	rows, err := db.Items(ctx, store.ItemFilter{TriageFilter: store.TriageFilter{OlderThan: 5 * 24 * time.Hour}, SortBy: "since"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != "old" || rows[1].ID != "mid" {
		t.Fatalf("overdue oldest first: %+v", rows)
	}
	oldest, err := db.OldestWaiting(ctx, []string{"b1", "b2", "b3", "nope"})
	if err != nil || len(oldest) != 3 || !oldest["b1"].Equal(t0) || !oldest["b2"].Equal(now.Add(-time.Hour)) {
		t.Fatalf("%v %v", oldest, err)
	}
}

func TestCreateRunQueuesInOneGoAndCancelsAsAGroup(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	var items []policy.Item
	for i := range 5 {
		items = append(items, failed(fmt.Sprintf("i%d", i), "b1", policy.CodeInternal, t0))
	}
	db.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, items...)})
	// i0 already has an open action: the run leaves it out.
	if _, err := db.CreateAction(ctx, store.Action{ItemID: "i0", Kind: policy.ActionResubmit, Key: "k-single", Reviewer: "ana"}, nil, allow); err != nil {
		t.Fatal(err)
	}
	var acts []store.Action
	for i := range 5 {
		acts = append(acts, store.Action{ItemID: fmt.Sprintf("i%d", i), Kind: policy.ActionResubmit, Key: fmt.Sprintf("k%d", i)})
	}
	acts = append(acts, store.Action{ItemID: "missing", Kind: policy.ActionResubmit, Key: "k-missing"})
	run, created, refused, err := db.CreateRun(ctx, policy.ActionResubmit, "ana", acts, policy.CanResubmit)
	if err != nil {
		t.Fatal(err)
	}
	if run.Confirmed != 6 || len(created) != 4 || len(refused) != 2 ||
		policy.ErrorCode(refused[0].Err) != policy.CodeActionOpen || policy.ErrorCode(refused[1].Err) != policy.CodeNotFound {
		t.Fatalf("run %+v created %d refused %+v", run, len(created), refused)
	}
	// One is being sent: the group cancel leaves it alone.
	if _, ok, err := db.LeaseAction(ctx, created[0].ID, time.Minute); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := db.CancelRun(ctx, 999, "ana"); policy.ErrorCode(err) != policy.CodeNotFound {
		t.Fatalf("cancelling a run that does not exist: %v", err)
	}
	cancelled, err := db.CancelRun(ctx, run.ID, "ana")
	if err != nil || len(cancelled) != 3 {
		t.Fatalf("%d cancelled %v", len(cancelled), err)
	}
	as, _ := db.RunActions(ctx, run.ID)
	states := map[policy.ActionState]int{}
	for _, a := range as {
		states[a.State]++
	}
	if states[policy.ActionSending] != 1 || states[policy.ActionCancelled] != 3 {
		t.Fatalf("%v", states)
	}
	// A run holds no more actions than confirmed: the database says so.
	one, got, _, err := db.CreateRun(ctx, policy.ActionResubmit, "ana",
		[]store.Action{{ItemID: "i2", Kind: policy.ActionResubmit, Key: "k-one"}}, policy.CanResubmit)
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if err := db.Exec(ctx, fmt.Sprintf(`INSERT INTO bulk_run_actions(action_id, run_id)
		SELECT id, %d FROM actions WHERE idempotency_key = 'k-single'`, one.ID)); err == nil {
		t.Fatal("a run confirmed for one item took a second action")
	}
}

func TestSavedViews(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	now := t0
	db.SetClock(func() time.Time { now = now.Add(time.Second); return now })
	if err := db.SaveView(ctx, " ", "{}"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatal(err)
	}
	for _, n := range []string{"Timeouts today", "Overdue files"} {
		if err := db.SaveView(ctx, n, `{"code":"x"}`); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SaveView(ctx, "Timeouts today", `{"code":"y"}`); err != nil {
		t.Fatal(err)
	}
	if err := db.RenameView(ctx, "Overdue files", "Timeouts today"); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("rename onto another: %v", err)
	}
	if err := db.RenameView(ctx, "Overdue files", "Files overdue"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteView(ctx, "nope"); policy.ErrorCode(err) != policy.CodeNotFound {
		t.Fatal(err)
	}
	vs, err := db.Views(ctx)
	if err != nil || len(vs) != 2 || vs[0].Name != "Timeouts today" || vs[0].Spec != `{"code":"y"}` || vs[1].Name != "Files overdue" {
		t.Fatalf("%+v %v", vs, err)
	}
	if err := db.DeleteView(ctx, "Files overdue"); err != nil {
		t.Fatal(err)
	}
	if vs, _ := db.Views(ctx); len(vs) != 1 {
		t.Fatalf("%+v", vs)
	}
}

func TestItemsByIDKeepsTheSelectionsOrder(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	var items []policy.Item
	for i := range 700 {
		items = append(items, failed(fmt.Sprintf("i%03d", i), "b1", policy.CodeInternal, t0))
	}
	db.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, items...)})
	ids := []string{"i699", "nope", "i000", "i699"}
	for i := 100; i < 650; i++ {
		ids = append(ids, fmt.Sprintf("i%03d", i))
	}
	rows, err := db.ItemsByID(ctx, ids)
	if err != nil || len(rows) != 552 || rows[0].ID != "i699" || rows[1].ID != "i000" || rows[551].ID != "i649" {
		t.Fatalf("%d %v", len(rows), err)
	}
}
