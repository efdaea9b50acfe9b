package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

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
