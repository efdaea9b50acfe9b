package policy_test

import (
	"slices"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

// TestActionMachineEveryStateEveryEvent writes the whole machine out again,
// by hand, and compares every state x event with it: a transition that is
// added, removed or changed shows here.
func TestActionMachineEveryStateEveryEvent(t *testing.T) {
	const (
		Q = policy.ActionQueued
		S = policy.ActionSending
		D = policy.ActionDone
		F = policy.ActionFailed
		U = policy.ActionUnknown
		C = policy.ActionCancelled
		X = policy.ActionState("") // refused
	)
	events := []policy.ActionEvent{policy.EventLease, policy.EventCancel, policy.EventNotSent, policy.EventNoAnswer,
		policy.EventRateLimited, policy.EventTurnedAway, policy.EventRefused, policy.EventAnswered}
	want := map[policy.ActionState][]policy.ActionState{
		//     claim cancel notSent noAnswer rateLimited turnedAway refused answered
		Q: {S, C, X, X, X, X, X, X}, // only a lease holder reports an outcome
		// A lease of a sending action is a take-over after its lease ran
		// out. A 429 on the key's first send ran nothing (the contract):
		// queued again, until its Retry-After; a 503, 401, 403 or CLAIMED
		// ends it as failed, and the reviewer decides again.
		S: {U, X, Q, U, Q, F, F, D},
		U: {U, X, U, U, U, U, F, D}, // only an answer for its key ends it
		D: {X, X, X, X, X, X, X, X},
		F: {X, X, X, X, X, X, X, X},
		C: {X, X, X, X, X, X, X, X},
	}
	if !slices.Equal(policy.ActionEvents(), events) {
		t.Fatalf("events %v, want %v", policy.ActionEvents(), events)
	}
	states := policy.ActionStates()
	if len(states) != len(want) {
		t.Fatalf("states %v", states)
	}
	for _, from := range states {
		row, ok := want[from]
		if !ok {
			t.Fatalf("state %s is not in the test's table", from)
		}
		for i, ev := range events {
			t.Run(string(from)+"/"+string(ev), func(t *testing.T) {
				got, ok := policy.Transition(from, ev)
				if !ok {
					got = X
				}
				if got != row[i] {
					t.Errorf("%s --%s--> %q, want %q", from, ev, got, row[i])
				}
			})
		}
	}
	if _, ok := policy.Transition("sent", policy.EventLease); ok {
		t.Error("a state that does not exist has a transition")
	}
	if _, ok := policy.Transition(Q, "retry"); ok {
		t.Error("an event that does not exist has a transition")
	}
}

func TestActionStateSets(t *testing.T) {
	open := []policy.ActionState{policy.ActionQueued, policy.ActionSending, policy.ActionUnknown}
	slices.Sort(open)
	if got := policy.OpenActionStates(); !slices.Equal(got, open) {
		t.Errorf("open states %v, want %v", got, open)
	}
	for _, s := range policy.ActionStates() {
		if s.Open() != slices.Contains(open, s) {
			t.Errorf("%s.Open() = %v", s, s.Open())
		}
	}
	if got := policy.StatesAllowing(policy.EventCancel); !slices.Equal(got, []policy.ActionState{policy.ActionQueued}) {
		t.Errorf("cancellable: %v; only an action that never left can be cancelled", got)
	}
	if got := policy.StatesAllowing(policy.EventLease); !slices.Equal(got, open) {
		t.Errorf("claimable: %v", got)
	}
	if policy.InitialActionState != policy.ActionQueued {
		t.Errorf("initial state %s", policy.InitialActionState)
	}
}

// reachedBy says whether an event, in a state, shows that the action may
// have reached the service: its first send started (a lease of a queued
// action that did not end in not_sent) or anything was heard back.
//
// TestOnceMaybeSentNeverQueuedOrCancelled walks every sequence of events up
// to a length from queued and checks the rule that protects the money: an
// action that may have reached the service never goes back to queued, is
// never cancelled, and leaves its open states only on an answer for its key.
func TestOnceMaybeSentNeverQueuedOrCancelled(t *testing.T) {
	type walk struct {
		state   policy.ActionState
		mayHave bool // may have reached the service
		sending bool // a send is under way: claimed, and not yet put back as not sent
		path    []policy.ActionEvent
	}
	frontier := []walk{{state: policy.InitialActionState}}
	seen := 0
	for depth := 0; depth < 7; depth++ {
		var next []walk
		for _, w := range frontier {
			for _, ev := range policy.ActionEvents() {
				to, ok := policy.Transition(w.state, ev)
				if !ok {
					continue
				}
				seen++
				path := append(slices.Clone(w.path), ev)
				// A lease from sending is a take-over: the first sender may
				// have sent. An attempt that reached something says so,
				// but for a 429, which by the contract ran nothing.
				mayHave := w.mayHave || (w.state == policy.ActionSending && ev == policy.EventLease) ||
					ev == policy.EventNoAnswer || ev == policy.EventTurnedAway || ev == policy.EventRefused || ev == policy.EventAnswered
				if mayHave && (to == policy.ActionQueued || to == policy.ActionCancelled) {
					t.Fatalf("%v leads an action that may have reached the service to %s", path, to)
				}
				if mayHave && !to.Open() && ev != policy.EventAnswered && ev != policy.EventRefused && ev != policy.EventTurnedAway {
					t.Fatalf("%v closes an action that may have run without an answer: %s", path, to)
				}
				if w.mayHave && w.state.Open() && !to.Open() && ev == policy.EventTurnedAway {
					t.Fatalf("%v: a request turned away closes an action an earlier send may have carried out", path)
				}
				// MayHaveRun is held to the walk, not to its own spelling:
				// an open action may have run when an earlier attempt may
				// have reached the service or a send is under way now.
				sending := ev == policy.EventLease || (w.sending && ev != policy.EventNotSent && ev != policy.EventRateLimited)
				if want := to.Open() && (mayHave || sending); to.MayHaveRun() != want {
					t.Fatalf("%v leads to %s: MayHaveRun() = %v, but the path says %v", path, to, to.MayHaveRun(), want)
				}
				next = append(next, walk{state: to, mayHave: mayHave && to.Open(), sending: sending && to.Open(), path: path})
			}
		}
		frontier = next
	}
	if seen < 100 {
		t.Fatalf("walked only %d transitions", seen)
	}
}

func TestOnlyAQueuedActionIsCancellable(t *testing.T) {
	for _, s := range policy.ActionStates() {
		if got, want := policy.Cancellable(s), s == policy.ActionQueued; got != want {
			t.Errorf("Cancellable(%s) = %v, want %v", s, got, want)
		}
	}
}

// TestNoteMachineEveryStateEveryEvent writes the note machine out by hand,
// as the test above does for actions: a note turned away on its first send
// goes back to queued (an action fails), and nothing else differs.
func TestNoteMachineEveryStateEveryEvent(t *testing.T) {
	const (
		Q = policy.ActionQueued
		S = policy.ActionSending
		D = policy.ActionDone
		F = policy.ActionFailed
		U = policy.ActionUnknown
		C = policy.ActionCancelled
		X = policy.ActionState("") // refused
	)
	events := policy.ActionEvents()
	want := map[policy.ActionState][]policy.ActionState{
		//     lease cancel notSent noAnswer rateLimited turnedAway refused answered
		Q: {S, C, X, X, X, X, X, X},
		S: {U, X, Q, U, Q, Q, F, D}, // rate limited or turned away: no verdict, nothing ran; sent again, never lost
		U: {U, X, U, U, U, U, F, D},
		D: {X, X, X, X, X, X, X, X},
		F: {X, X, X, X, X, X, X, X},
		C: {X, X, X, X, X, X, X, X},
	}
	states := policy.NoteStates()
	if len(states) != len(want) {
		t.Fatalf("note states %v", states)
	}
	for _, from := range states {
		row, ok := want[from]
		if !ok {
			t.Fatalf("state %s is not in the test's table", from)
		}
		for i, ev := range events {
			got, ok := policy.NoteTransition(from, ev)
			if !ok {
				got = X
			}
			if got != row[i] {
				t.Errorf("note %s --%s--> %q, want %q", from, ev, got, row[i])
			}
		}
	}
	if policy.InitialNoteState != Q || policy.SyncedNoteState != D {
		t.Errorf("a note is written %s and synced %s", policy.InitialNoteState, policy.SyncedNoteState)
	}
}

func TestNoteStateSets(t *testing.T) {
	open := []policy.ActionState{policy.ActionQueued, policy.ActionSending, policy.ActionUnknown}
	slices.Sort(open)
	if got := policy.OpenNoteStates(); !slices.Equal(got, open) {
		t.Errorf("open note states %v, want %v", got, open)
	}
	if got := policy.NoteStatesAllowing(policy.EventLease); !slices.Equal(got, open) {
		t.Errorf("leasable notes %v, want %v", got, open)
	}
	if got := policy.NoteStatesAllowing(policy.EventCancel); !slices.Equal(got, []policy.ActionState{policy.ActionQueued}) {
		t.Errorf("cancellable notes %v", got)
	}
	for s, want := range map[policy.ActionState][2]bool{ // kept, counts
		policy.ActionQueued: {true, true}, policy.ActionSending: {true, true}, policy.ActionUnknown: {true, true},
		policy.ActionDone: {true, true}, policy.ActionFailed: {true, false}, policy.ActionCancelled: {false, false},
	} {
		if got := [2]bool{policy.NoteKept(s), policy.NoteCounts(s)}; got != want {
			t.Errorf("%s: kept, counts = %v, want %v", s, got, want)
		}
	}
}

// Queue again is offered for a refusal for now, never for an answer about
// the intent itself nor one that waiting does not change.
func TestMayQueueAgain(t *testing.T) {
	for code, want := range map[policy.Code]bool{
		policy.CodeServiceUnavailable: true, policy.CodeRateLimited: true,
		policy.CodeClaimed: false, policy.CodeUnauthenticated: false, policy.CodeForbidden: false,
		policy.CodeNotRetryable: false, policy.CodeValidationFailed: false, policy.CodeItemChanged: false, "": false,
	} {
		if got := policy.MayQueueAgain(policy.ActionFailed, code); got != want {
			t.Errorf("MayQueueAgain(failed, %s) = %v, want %v", code, got, want)
		}
		// Only a failed action: the same code on any other state is not
		// a refusal for now (an unknown one is reconciled, never anew).
		for _, st := range []policy.ActionState{policy.ActionQueued, policy.ActionSending, policy.ActionUnknown, policy.ActionDone, policy.ActionCancelled} {
			if policy.MayQueueAgain(st, code) {
				t.Errorf("MayQueueAgain(%s, %s) = true", st, code)
			}
		}
	}
}
