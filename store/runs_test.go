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
	db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, items...)})
	// i0 already has an open action: the run leaves it out.
	if _, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i0", Kind: policy.ActionResubmit, Key: "k-single", Reviewer: "ana"}, nil, allow); err != nil {
		t.Fatal(err)
	}
	var acts []store.Action
	for i := range 5 {
		acts = append(acts, store.Action{ItemID: fmt.Sprintf("i%d", i), Kind: policy.ActionResubmit, Key: fmt.Sprintf("k%d", i)})
	}
	acts = append(acts, store.Action{ItemID: "missing", Kind: policy.ActionResubmit, Key: "k-missing"})
	run, created, refused, err := db.Runs.CreateRun(ctx, policy.ActionResubmit, "ana", acts, policy.CanResubmit)
	if err != nil {
		t.Fatal(err)
	}
	if run.Confirmed != 6 || len(created) != 4 || len(refused) != 2 ||
		policy.ErrorCode(refused[0].Err) != policy.CodeActionOpen || policy.ErrorCode(refused[1].Err) != policy.CodeNotFound {
		t.Fatalf("run %+v created %d refused %+v", run, len(created), refused)
	}
	// One is being sent: the group cancel leaves it alone.
	if _, ok, err := db.Outbox.LeaseAction(ctx, created[0].ID, time.Minute); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := db.Runs.CancelRun(ctx, 999, "ana"); policy.ErrorCode(err) != policy.CodeNotFound {
		t.Fatalf("cancelling a run that does not exist: %v", err)
	}
	cancelled, err := db.Runs.CancelRun(ctx, run.ID, "ana")
	if err != nil || len(cancelled) != 3 {
		t.Fatalf("%d cancelled %v", len(cancelled), err)
	}
	as, _ := db.Runs.RunActions(ctx, run.ID)
	states := map[policy.ActionState]int{}
	for _, a := range as {
		states[a.State]++
	}
	if states[policy.ActionSending] != 1 || states[policy.ActionCancelled] != 3 {
		t.Fatalf("%v", states)
	}
	// A run holds no more actions than confirmed: the database says so.
	one, got, _, err := db.Runs.CreateRun(ctx, policy.ActionResubmit, "ana",
		[]store.Action{{ItemID: "i2", Kind: policy.ActionResubmit, Key: "k-one"}}, policy.CanResubmit)
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if err := db.Exec(ctx, fmt.Sprintf(`INSERT INTO bulk_run_actions(action_id, run_id)
		SELECT id, %d FROM actions WHERE idempotency_key = 'k-single'`, one.ID)); err == nil {
		t.Fatal("a run confirmed for one item took a second action")
	}
}

// A confirmation taken from a source a chunk at a time (CreateRunFrom)
// holds only a chunk: the source is asked for no more than a chunk and one
// action ahead, each action is handed back once, after its chunk commits,
// and the run's audit line is written once, by the chunk that writes the
// last action, even when the count is a whole number of chunks. The run's
// counts and its pages (RunCounts, EachRunAction) read it back in order.
func TestARunFromASourceHoldsAChunkAndReadsBackInPages(t *testing.T) {
	const n = 10_000 // two whole chunks of runChunkMax
	db, acts := errorCache(t, n)
	ctx := context.Background()
	rest, asked := acts, 0
	source := func(want int) ([]store.Action, error) {
		asked = max(asked, want)
		part := rest[:min(want, len(rest))]
		rest = rest[len(part):]
		return part, nil
	}
	seen := map[string]bool{}
	handed := 0
	run, queued, err := db.Runs.CreateRunFrom(ctx, policy.ActionResubmit, "ana", n, source, policy.CanResubmit,
		func(created []store.Action, refused []store.Refusal) {
			handed += len(created) + len(refused)
			for _, a := range created {
				if seen[a.Key] || a.ID == 0 || a.State != policy.ActionQueued {
					t.Errorf("handed back twice, or not queued: %+v", a)
				}
				seen[a.Key] = true
			}
		})
	if err != nil || queued != n || handed != n || len(seen) != n || run.Confirmed != n {
		t.Fatalf("run %+v: %d queued, %d handed back, %d keys: %v", run, queued, handed, len(seen), err)
	}
	if asked > 5001 {
		t.Fatalf("the source was asked for %d actions at once: more than a chunk and one", asked)
	}
	var lines int
	if err := db.QueryRow(ctx, fmt.Sprintf(`SELECT COUNT(*) FROM audit WHERE event = 'bulk resubmit run %d queued'`, run.ID), &lines); err != nil || lines != 1 {
		t.Fatalf("%d audit lines for the run (%v), want 1", lines, err)
	}
	counts, err := db.Runs.RunCounts(ctx, run.ID)
	if err != nil || len(counts) != 1 || counts[policy.ActionQueued] != n {
		t.Fatalf("%v %v", counts, err)
	}
	// One action sent: the pages see it in its state, in the order queued.
	if _, ok, err := db.Outbox.LeaseAction(ctx, 1234, time.Minute); !ok || err != nil {
		t.Fatal(ok, err)
	}
	var last int64
	var all, queuedOnly int
	err = db.Runs.EachRunAction(ctx, run.ID, nil, func(a store.Action) error {
		if a.ID <= last {
			t.Fatalf("action %d after %d", a.ID, last)
		}
		last = a.ID
		all++
		return nil
	})
	if err != nil || all != n {
		t.Fatalf("%d actions read back: %v", all, err)
	}
	err = db.Runs.EachRunAction(ctx, run.ID, []policy.ActionState{policy.ActionQueued}, func(a store.Action) error {
		if a.ID == 1234 || a.State != policy.ActionQueued {
			t.Fatalf("%+v", a)
		}
		queuedOnly++
		return nil
	})
	if err != nil || queuedOnly != n-1 {
		t.Fatalf("%d queued read back: %v", queuedOnly, err)
	}
	if counts, _ := db.Runs.RunCounts(ctx, run.ID); counts[policy.ActionSending] != 1 || counts[policy.ActionQueued] != n-1 {
		t.Fatalf("%v", counts)
	}
}
