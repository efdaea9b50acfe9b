package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// TestStoreFollowsTheActionMachine puts an action in every state and
// applies every event through the store's own methods: what the store
// writes, or refuses, is what policy.Transition says, for every pair.
func TestStoreFollowsTheActionMachine(t *testing.T) {
	ctx := context.Background()
	for _, from := range policy.ActionStates() {
		for _, ev := range policy.ActionEvents() {
			t.Run(string(from)+"/"+string(ev), func(t *testing.T) {
				db := MustOpenDB(t)
				now := t0
				db.SetClock(func() time.Time { return now })
				seedOne(t, db, policy.CodeClassifierTimeout)
				a, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i1", Kind: policy.ActionResubmit, Key: "k", Reviewer: "ana"}, nil, allow)
				if err != nil {
					t.Fatal(err)
				}
				// The row as a lease holder (send 1) left it; a lease
				// finds the lease run out, a finish finds it held.
				lease := "NULL"
				if from.Open() && from != policy.ActionQueued {
					lease = fmt.Sprint(t0.Add(time.Minute).UnixMilli())
					if ev == policy.EventLease {
						lease = fmt.Sprint(t0.Add(-time.Second).UnixMilli())
					}
				}
				if err := db.Exec(ctx, fmt.Sprintf(`UPDATE actions SET state = '%s', sends = 1, lease_until = %s WHERE id = %d`, from, lease, a.ID)); err != nil {
					t.Fatal(err)
				}
				var got store.Action
				switch ev {
				case policy.EventLease:
					var ok bool
					got, ok, err = db.Outbox.LeaseAction(ctx, a.ID, time.Minute)
					if err == nil && !ok {
						err = fmt.Errorf("claim refused")
					}
				case policy.EventCancel:
					got, err = db.Outbox.CancelAction(ctx, a.ID, "ana")
				default:
					got, err = db.Outbox.FinishAction(ctx, a.ID, store.Finish{On: ev, Lease: 1, Event: string(ev)})
				}
				after, _ := db.Outbox.Action(ctx, a.ID)
				want, allowed := policy.Transition(from, ev)
				switch {
				case allowed && err != nil:
					t.Fatalf("the machine allows %s in %s, the store refused: %v", ev, from, err)
				case allowed && (got.State != want || after.State != want):
					t.Fatalf("%s --%s--> %s (stored %s), the machine says %s", from, ev, got.State, after.State, want)
				case !allowed && err == nil:
					t.Fatalf("the machine refuses %s in %s, the store moved it to %s", ev, from, after.State)
				case !allowed && after.State != from:
					t.Fatalf("a refused %s moved %s to %s", ev, from, after.State)
				}
			})
		}
	}
}

// A lease needs the lease free: a live lease refuses it in every state,
// and says until when.
func TestALeaseRespectsALiveLease(t *testing.T) {
	ctx := context.Background()
	for _, from := range policy.StatesAllowing(policy.EventLease) {
		t.Run(string(from), func(t *testing.T) {
			db := MustOpenDB(t)
			db.SetClock(func() time.Time { return t0 })
			seedOne(t, db, policy.CodeClassifierTimeout)
			a, _ := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i1", Kind: policy.ActionResubmit, Key: "k", Reviewer: "ana"}, nil, allow)
			until := t0.Add(time.Second)
			db.Exec(ctx, fmt.Sprintf(`UPDATE actions SET state = '%s', sends = 1, lease_until = %d WHERE id = %d`, from, until.UnixMilli(), a.ID))
			got, ok, err := db.Outbox.LeaseAction(ctx, a.ID, time.Minute)
			if err != nil || ok || got.State != from || !got.LeaseUntil.Equal(until) || got.Sends != 1 {
				t.Fatalf("leased under a live lease: %+v %v %v", got, ok, err)
			}
		})
	}
}

// An unknown outcome is never cancelled, and the refusal says why and
// what to do.
func TestUnknownIsNeverCancelled(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	seedOne(t, db, policy.CodeClassifierTimeout)
	a, _ := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i1", Kind: policy.ActionResubmit, Key: "k", Reviewer: "ana"}, nil, allow)
	c, _, _ := db.Outbox.LeaseAction(ctx, a.ID, time.Minute)
	db.Outbox.FinishAction(ctx, a.ID, store.Finish{On: policy.EventNoAnswer, Lease: c.Sends, Event: "unknown"})
	_, err := db.Outbox.CancelAction(ctx, a.ID, "ana")
	if policy.ErrorCode(err) != policy.CodeConflict || !strings.Contains(err.Error(), "may have reached the service") || !strings.Contains(err.Error(), "flush") {
		t.Fatalf("%v", err)
	}
	if _, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i1", Kind: policy.ActionResubmit, Key: "k2", Reviewer: "ana"}, nil, allow); policy.ErrorCode(err) != policy.CodeActionOpen {
		t.Fatalf("a second action beside an unknown one: %v", err)
	}
}

// A first send the service rate limited goes back to the queue with the
// Retry-After as its not-before: no lease and no pending listing before
// then (in this process or any other), a lease after it, and the wait is
// forgotten once it goes out.
func TestARateLimitedActionWaitsForItsRetryAfter(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	now := t0
	db.SetClock(func() time.Time { return now })
	seedOne(t, db, policy.CodeClassifierTimeout)
	a, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: "i1", Kind: policy.ActionResubmit, Key: "k", Reviewer: "ana"}, nil, allow)
	if err != nil {
		t.Fatal(err)
	}
	l, ok, err := db.Outbox.LeaseAction(ctx, a.ID, time.Minute)
	if err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	until := t0.Add(90 * time.Second)
	back, err := db.Outbox.FinishAction(ctx, a.ID, store.Finish{On: policy.EventRateLimited, Lease: l.Sends, ErrCode: policy.CodeRateLimited,
		Err: "slow down", RateLimitedUntil: until, Event: "rate limited"})
	if err != nil || back.State != policy.ActionQueued || !back.NotBefore.Equal(until) || !back.LeaseUntil.IsZero() {
		t.Fatalf("after a 429: %+v %v", back, err)
	}
	if !store.Waiting(back, now) {
		t.Fatal("a rate-limited action is not waiting")
	}
	for _, at := range []time.Duration{0, 89 * time.Second} {
		now = t0.Add(at)
		if got, ok, err := db.Outbox.LeaseAction(ctx, a.ID, time.Minute); err != nil || ok || got.State != policy.ActionQueued || !got.NotBefore.Equal(until) {
			t.Fatalf("leased %s before its Retry-After: %+v %v %v", at, got, ok, err)
		}
		if p, err := db.Outbox.PendingActions(ctx); err != nil || len(p) != 0 {
			t.Fatalf("pending %s before its Retry-After: %+v %v", at, p, err)
		}
		if o, err := db.Outbox.Outbox(ctx); err != nil || len(o) != 1 || !o[0].NotBefore.Equal(until) {
			t.Fatalf("the outbox does not show the wait: %+v %v", o, err)
		}
	}
	now = until
	if p, err := db.Outbox.PendingActions(ctx); err != nil || len(p) != 1 {
		t.Fatalf("pending at its Retry-After: %+v %v", p, err)
	}
	got, ok, err := db.Outbox.LeaseAction(ctx, a.ID, time.Minute)
	if err != nil || !ok || got.State != policy.ActionSending || !got.NotBefore.IsZero() || got.Sends != 2 {
		t.Fatalf("lease at its Retry-After: %+v %v %v", got, ok, err)
	}
	// A send that reached nothing queues it with no wait.
	back, err = db.Outbox.FinishAction(ctx, a.ID, store.Finish{On: policy.EventNotSent, Lease: got.Sends, ErrCode: policy.CodeAPIUnreachable, Event: "not sent"})
	if err != nil || back.State != policy.ActionQueued || !back.NotBefore.IsZero() {
		t.Fatalf("not sent: %+v %v", back, err)
	}
}
