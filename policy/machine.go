package policy

import (
	"sort"
	"time"
)

// ActionState is the state of a reviewer's action in the outbox.
type ActionState string

const (
	// ActionQueued: written with its key; nothing of it has reached the API.
	ActionQueued ActionState = "queued"
	// ActionSending: its first send is under way, under a lease.
	ActionSending ActionState = "sending"
	// ActionDone: the service answered yes for its key.
	ActionDone ActionState = "done"
	// ActionFailed: the service answered no; its code is kept.
	ActionFailed ActionState = "failed"
	// ActionUnknown: it may have been carried out and no answer for its key
	// has come back. It is reconciled (sent again with the same key) under a
	// lease, and stays unknown while that happens and whatever the attempt
	// meets short of an answer for its key.
	ActionUnknown ActionState = "unknown"
	// ActionCancelled: withdrawn by the reviewer before anything was sent.
	ActionCancelled ActionState = "cancelled"
)

// ActionEvent is what can happen to an action.
type ActionEvent string

const (
	// EventLease: a sender takes the action under a lease. The store allows
	// it only when no live lease is held: a lease of a sending action is a
	// take-over after its sender's lease ran out.
	EventLease ActionEvent = "lease"
	// EventCancel: the reviewer withdraws the action.
	EventCancel ActionEvent = "cancel"
	// EventNotSent: the lease holder's attempt ended with nothing of it
	// reaching the API (not connected, circuit open, no budget, an untrusted
	// certificate, a failure before the call).
	EventNotSent ActionEvent = "not_sent"
	// EventNoAnswer: the request went out and no answer for its key came
	// back (timeout, reset, a proxy's bare 5xx, an answer that breaks the
	// contract, 409 IDEMPOTENCY_KEY_IN_USE).
	EventNoAnswer ActionEvent = "no_answer"
	// EventRateLimited: the service rate limited the request (429): by the
	// contract's own word nothing ran for it, and the answer says when to
	// come back (Retry-After). On a first send the action goes back to the
	// queue with that time as its not-before; it says nothing of an earlier
	// send with the same key.
	EventRateLimited ActionEvent = "rate_limited"
	// EventTurnedAway: the service turned the request away before looking
	// at its key (503 with its error body, 401, 403, CLAIMED): nothing is
	// promised of this request (a service failing as it shuts down may
	// have run the work), and it says nothing of an earlier one.
	EventTurnedAway ActionEvent = "turned_away"
	// EventRefused: the service answered no for the key (NOT_RETRYABLE,
	// VALIDATION_FAILED, NOT_FOUND, ...).
	EventRefused ActionEvent = "refused"
	// EventAnswered: the service answered yes for the key.
	EventAnswered ActionEvent = "answered"
)

// InitialActionState is the state an action is written in.
const InitialActionState = ActionQueued

// actionMachine is the life of an action, the one place it is written down:
// state x event -> state. A pair that is not here is refused. The store
// follows it for every write of an action's state. A note has its own
// table, noteMachine, below.
//
// The rule it keeps: once an action may have reached the service (its
// first send started), it never goes back to queued and can never be
// cancelled; only an answer for its key (done, failed) ends it. The one
// way back from a send is a first send that ran nothing by the contract's
// word: not sent at all, or rate limited (429), which queues it again
// with the Retry-After as its not-before time (the store keeps it, and no
// lease is given before it). Hence a
// take-over of a sending action whose lease ran out leads to unknown, and
// unknown meets every attempt short of an answer for its key by staying
// unknown. The design sketch had unknown -> sending -> unknown for a
// reconciliation; here the action stays unknown while it is reconciled
// (under a lease), so that "sending" only ever means a first send and a
// crash during a reconciliation cannot look like one.
var actionMachine = map[ActionState]map[ActionEvent]ActionState{
	ActionQueued: {
		EventLease:  ActionSending,
		EventCancel: ActionCancelled,
	},
	ActionSending: {
		EventLease:       ActionUnknown, // take-over: the sender died or stalled after it may have sent
		EventNotSent:     ActionQueued,  // a first send that reached nothing
		EventNoAnswer:    ActionUnknown,
		EventRateLimited: ActionQueued, // the key's first request, and the contract says a 429 ran nothing: queued until its Retry-After
		EventTurnedAway:  ActionFailed, // a 503 may have run it, 401/403/CLAIMED will not change by waiting: the reviewer decides again
		EventRefused:     ActionFailed,
		EventAnswered:    ActionDone,
	},
	ActionUnknown: {
		EventLease:       ActionUnknown, // reconciling, under a lease
		EventNotSent:     ActionUnknown,
		EventNoAnswer:    ActionUnknown,
		EventRateLimited: ActionUnknown, // not an answer for the key: an earlier send may have run
		EventTurnedAway:  ActionUnknown, // not an answer for the key: an earlier send may have run
		EventRefused:     ActionFailed,
		EventAnswered:    ActionDone,
	},
	ActionDone:      {},
	ActionFailed:    {},
	ActionCancelled: {},
}

// Transition is the state an event leads to from a state; ok is false when
// the machine does not allow the event in that state.
func Transition(from ActionState, ev ActionEvent) (to ActionState, ok bool) {
	to, ok = actionMachine[from][ev]
	return to, ok
}

// ActionStates lists every state, sorted.
func ActionStates() []ActionState {
	return statesWhere(func(ActionState) bool { return true })
}

// InitialNoteState is the state a note a reviewer writes is stored in.
const InitialNoteState = ActionQueued

// SyncedNoteState is the state of a note the service sent with an item: it
// is on the service already, so it enters the machine settled.
const SyncedNoteState = ActionDone

// noteMachine is the life of a note in its own outbox, the one place it is
// written down: the action machine's states and events, and the same rule
// (once it may have reached the service, only an answer for its key ends
// it), with the two differences a note brings:
//   - turned away (429, 503, 401, 403, CLAIMED) on its first send, a note
//     goes back to queued, where an action fails: nothing ran for that
//     request, and a note is no verdict, so it must not be lost; the next
//     flush sends it again with the same key. A reconciling note stays
//     unknown, as an action does.
//   - a cancelled note is not kept (NoteKept): it never reached anyone, so
//     its row goes, and the audit keeps what it said.
var noteMachine = map[ActionState]map[ActionEvent]ActionState{
	ActionQueued: {
		EventLease:  ActionSending,
		EventCancel: ActionCancelled,
	},
	ActionSending: {
		EventLease:       ActionUnknown,
		EventNotSent:     ActionQueued,
		EventNoAnswer:    ActionUnknown,
		EventRateLimited: ActionQueued, // no verdict and nothing ran: sent again by the next flush
		EventTurnedAway:  ActionQueued, // no verdict and nothing ran: sent again by the next flush
		EventRefused:     ActionFailed,
		EventAnswered:    ActionDone,
	},
	ActionUnknown: {
		EventLease:       ActionUnknown,
		EventNotSent:     ActionUnknown,
		EventNoAnswer:    ActionUnknown,
		EventRateLimited: ActionUnknown,
		EventTurnedAway:  ActionUnknown,
		EventRefused:     ActionFailed,
		EventAnswered:    ActionDone,
	},
	ActionDone:      {},
	ActionFailed:    {},
	ActionCancelled: {},
}

// NoteTransition is the state an event leads a note to from a state; ok
// is false when the note machine does not allow the event in that state.
func NoteTransition(from ActionState, ev ActionEvent) (to ActionState, ok bool) {
	to, ok = noteMachine[from][ev]
	return to, ok
}

// NoteStates lists every state of a note, sorted.
func NoteStates() []ActionState {
	return statesOf(noteMachine, func(ActionState) bool { return true })
}

// OpenNoteStates lists the states in which a note is still on its way
// (any state with a way out), sorted.
func OpenNoteStates() []ActionState {
	return statesOf(noteMachine, func(s ActionState) bool { return len(noteMachine[s]) > 0 })
}

// NoteStatesAllowing lists the states in which ev is allowed for a note, sorted.
func NoteStatesAllowing(ev ActionEvent) []ActionState {
	return statesOf(noteMachine, func(s ActionState) bool { _, ok := NoteTransition(s, ev); return ok })
}

// NoteKept reports whether a note in this state keeps its row: all but a
// cancelled one.
func NoteKept(s ActionState) bool { return s != ActionCancelled }

// NoteCounts reports whether a note in this state is on its item or on its
// way there, and so is counted, listed and exported with it: all kept
// states but failed (the service refused it).
func NoteCounts(s ActionState) bool { return NoteKept(s) && s != ActionFailed }

// ActionEvents lists every event.
func ActionEvents() []ActionEvent {
	return []ActionEvent{EventLease, EventCancel, EventNotSent, EventNoAnswer, EventRateLimited, EventTurnedAway, EventRefused, EventAnswered}
}

// Open reports whether an action in this state still holds its item (at
// most one open action per item): any state that has a way out.
func (s ActionState) Open() bool { return len(actionMachine[s]) > 0 }

// OpenActionStates lists the states that hold their item, sorted.
func OpenActionStates() []ActionState { return statesWhere(ActionState.Open) }

// StatesAllowing lists the states in which ev is allowed, sorted.
func StatesAllowing(ev ActionEvent) []ActionState {
	return statesWhere(func(s ActionState) bool { _, ok := Transition(s, ev); return ok })
}

// Cancellable reports whether the reviewer may withdraw an action in this
// state: the machine says, not a spelled-out state.
func Cancellable(s ActionState) bool {
	_, ok := Transition(s, EventCancel)
	return ok
}

// MayHaveRun reports whether an action in this state may have been carried
// out by the service without the console knowing its answer: it must be
// reconciled with its key, never repeated with a new one or cancelled.
func (s ActionState) MayHaveRun() bool { return s == ActionSending || s == ActionUnknown }

// NeedsReconcile reports whether the next step of an action in this state
// is to ask the service again with its key.
func (s ActionState) NeedsReconcile() bool { return s == ActionUnknown }

func statesWhere(pred func(ActionState) bool) []ActionState {
	return statesOf(actionMachine, pred)
}

func statesOf(m map[ActionState]map[ActionEvent]ActionState, pred func(ActionState) bool) []ActionState {
	var out []ActionState
	for s := range m {
		if pred(s) {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// DropsFile reports whether a replacement's file is deleted when its
// action reaches this state: a state with no way out in which the service
// either ran the file (done) or never got it (cancelled). A failed one was
// refused or turned away, and the reviewer may well want to send the same
// file again (a new intent, a new key), so its file stays until she
// discards it or the retention removes it (DefaultKeptFileRetention).
func (s ActionState) DropsFile() bool { return !s.Open() && s != ActionFailed }

// WaitingRetryAfter reports whether an action in this state waits for a
// rate limit's Retry-After (its not-before) at now: queued, with its
// not-before still ahead. No sender takes it before then (the store's
// lease), and the window and the command line say it waits.
func WaitingRetryAfter(state ActionState, notBefore, now time.Time) bool {
	return state == ActionQueued && notBefore.After(now)
}

// MayQueueAgain reports whether an action in this state, with this last
// code, may be queued again by the reviewer, in one step, as a new intent with a new
// key: the service turned it away for now (503, or a 429 recorded before
// a 429 queued the action by itself), so the same intent may well go
// through later. The service may have run the work before a 503, so it is
// her choice, never the console's. A refusal for the key (not retryable,
// validation), a claim, a token or a role the service refused are no
// reason to send the same again; nor is any action that did not fail
// (one open is still on its way, a done or cancelled one is settled).
func MayQueueAgain(state ActionState, code Code) bool {
	return state == ActionFailed && (code == CodeServiceUnavailable || code == CodeRateLimited)
}
