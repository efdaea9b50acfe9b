package review

import (
	"context"
	"errors"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// One sender for every kind of outbox row, actions and notes: it leases
// the row, makes its call once with the row's stored key, observes what
// the call says of the connection, records the outcome under the lease,
// and, when the record fails (another process took the row over: the
// fence), says how the row will be reconciled. What differs between the
// kinds is a rule of theirs, and lives in their outboxSend:
//
//   - an action carries If-Match (the revision the reviewer saw), reads
//     the item first when the cache does not know it, and is sent again
//     once when only her own note moved the item; a note carries none;
//   - an action holds the item's one open-action slot (the store's lease
//     and index); a note takes no slot;
//   - a note turned away on its first send goes back to queued, where an
//     action fails (policy's note machine, applied by the store);
//   - a done note reads the item back, since its answer does not carry the
//     revision it made.

// outboxSend is one send of one outbox row of some kind, as sendOne drives
// it, step by step; Res is what the send hands back (Result, NoteResult).
type outboxSend[Res any] interface {
	// lease takes the row under a lease; when it is not taken (another
	// sender holds it, it waits, it is settled) res says why.
	lease(ctx context.Context) (ok bool, res Res, err error)
	// call makes the row's request with its stored key. A send that ends
	// before any request records that itself and returns ended.
	call(ctx, opCtx context.Context) (ended bool, res Res, err error)
	// afterCall runs a test's hook between the answer and its record.
	afterCall()
	// callErr is what the call met, nil for an answer.
	callErr() error
	// judge decides the event the call met and what the audit says of it.
	judge(ctx context.Context)
	// record writes the outcome under the lease.
	record(ctx context.Context) error
	// unrecorded is the end of a send whose outcome could not be written.
	unrecorded(ctx context.Context, err error) (Res, error)
	// recorded is the end of a send whose outcome was written.
	recorded(ctx, opCtx context.Context) Res
}

// sendOne is the one sender: lease, call, observe, record, fence.
func sendOne[Res any](ctx context.Context, s *core, o outboxSend[Res]) (Res, error) {
	if ok, res, err := o.lease(ctx); err != nil || !ok {
		return res, err
	}
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	if ended, res, err := o.call(ctx, opCtx); ended {
		return res, err
	}
	o.afterCall()
	s.observe(o.callErr())
	rctx, rcancel := recordCtx(ctx)
	defer rcancel()
	o.judge(rctx)
	if err := o.record(rctx); err != nil {
		return o.unrecorded(rctx, err)
	}
	return o.recorded(rctx, opCtx), nil
}

// send leases an action and sends it once, with its stored key. When the
// lease fails, the Result says why (Unleased) and no call is made. An error
// after the call means its outcome could not be recorded: it says the
// request was sent and how it will be reconciled.
func (s *core) send(ctx context.Context, id int64) (Result, error) {
	return sendOne[Result](ctx, s, &actionSend{s: s, id: id})
}

// sendNote leases a note and sends it once, with its stored key.
func (s *core) sendNote(ctx context.Context, id int64) (NoteResult, error) {
	return sendOne[NoteResult](ctx, s, &noteSend{s: s, id: id})
}

// actionSend is one send of an action.
type actionSend struct {
	s        *core
	id       int64
	a        store.Action
	rev      int64            // the If-Match sent
	read     []policy.Attempt // the evidence of a read before the send
	attempts []policy.Attempt // the send's own
	item     *policy.Item     // the answer, when it came
	broken   *policy.Item     // an answer that broke the contract, kept on the item as invalid
	err      error            // the call's
	fin      store.Finish     // what is recorded
	done     store.Action     // as recorded
}

func (o *actionSend) lease(ctx context.Context) (bool, Result, error) {
	s := o.s
	a, ok, err := s.db.Outbox.LeaseAction(ctx, o.id, s.lease())
	if err != nil {
		return false, Result{}, err
	}
	if !ok { // another sender holds it, it waits for a rate limit's end, or it is settled
		res := Result{Action: a, Unleased: UnleasedSettled}
		switch {
		case store.Waiting(a, s.now()):
			res.Unleased = UnleasedWaiting
		case a.State.Open():
			res.Unleased = UnleasedBusy
		}
		return false, res, nil
	}
	o.a = a
	return true, Result{}, nil
}

func (o *actionSend) call(ctx, opCtx context.Context) (bool, Result, error) {
	s, a := o.s, o.a
	// The revision stored when the action was queued (conflicts.go).
	rev, err := s.db.Outbox.ActionRevision(ctx, a.ID)
	if err != nil {
		res, err := s.release(ctx, a, err)
		return true, res, err
	}
	if rev == 0 { // a 1.0 service's item reads back without one: then none is sent
		// The cache does not know the revision the reviewer saw: never
		// send blind on a service that guards with If-Match.
		rf := s.readFirst(ctx, opCtx, a)
		o.read = rf.attempts
		switch {
		case rf.err != nil:
			res, err := s.notSent(ctx, a, rf.err, o.read)
			return true, res, err
		case rf.changed != nil:
			res, err := s.stopChanged(ctx, a, rf, o.read)
			return true, res, err
		}
		rev = rf.match
	}

	item, attempts, callErr, err := s.post(ctx, opCtx, a, rev)
	if err != nil {
		res, err := s.release(ctx, a, err)
		return true, res, err
	}
	if next, ok := s.ownNoteOnly(ctx, a, rev, callErr); ok {
		// Only her own doing moved the item since she acted (a note she
		// wrote): the same key, at the new revision, once. The 412 ran
		// nothing for this key.
		// The new revision is kept first: once the second request may
		// have gone out, a failure to record can no longer say "not sent".
		rctx, rcancel := recordCtx(ctx)
		err := s.db.Outbox.SetActionRevision(rctx, a.ID, next)
		rcancel()
		if err != nil {
			res, err := s.notSent(ctx, a, err, append(o.read, attempts...))
			return true, res, err
		}
		var more []policy.Attempt
		rev = next
		item, more, callErr, err = s.post(ctx, opCtx, a, rev)
		attempts = append(attempts, more...)
		if err != nil {
			res, err := s.notSent(ctx, a, err, append(o.read, attempts...))
			return true, res, err
		}
	}
	if callErr == nil && item != nil {
		if bad := s.foreignAnswer(ctx, a.ItemID, *item); bad != nil {
			callErr, item = bad, nil
		} else if item.Status == policy.StatusInvalid {
			// Not a verdict: the request went out and what came back
			// cannot be read as one, so the outcome is unknown, and the
			// item stays before the reviewer, marked invalid.
			callErr = &client.Error{Code: policy.CodeInvalidResponse, Class: client.ClassBadAnswer, HTTPStatus: 200,
				Message: "the service's answer broke the contract: " + item.Problem}
			o.broken, item = item, nil
		}
	}
	o.rev, o.attempts, o.item, o.err = rev, attempts, item, callErr
	return false, Result{}, nil
}

func (o *actionSend) afterCall() {
	if o.s.afterCall != nil {
		o.s.afterCall(o.a)
	}
}

func (o *actionSend) callErr() error { return o.err }

func (o *actionSend) judge(ctx context.Context) {
	a := o.a
	o.fin = outcome(o.item, o.err)
	o.err = o.s.explainConflict(ctx, &o.fin.Applied, &o.fin.Err, a.ItemID, o.rev, a.CreatedAt, o.err) // conflicts.go: 412 and 409 apply the item
	if o.broken != nil && o.fin.Applied == nil {
		o.fin.Applied = o.broken
	}
	o.fin.Lease = a.Sends
	o.fin.Attempts = append(o.read, o.attempts...)
}

func (o *actionSend) record(ctx context.Context) (err error) {
	o.done, err = o.s.db.Outbox.FinishAction(ctx, o.a.ID, o.fin)
	return err
}

func (o *actionSend) unrecorded(ctx context.Context, err error) (Result, error) {
	res := Result{Action: o.a, Err: o.err}
	if cur, cerr := o.s.db.Outbox.Action(ctx, o.a.ID); cerr == nil {
		res.Action = cur
	}
	return res, o.s.unrecorded(o.a, o.fin, err)
}

func (o *actionSend) recorded(context.Context, context.Context) Result {
	res := Result{Action: o.done, Err: o.err}
	if o.done.State == policy.ActionDone {
		res.Item = o.fin.Item
	}
	return res
}

// noteSend is one send of a note: no If-Match, no slot of the item's one
// open action; turned away on a first send, it goes back to queued (the
// note machine, applied by the store).
type noteSend struct {
	s        *core
	id       int64
	n        store.NoteRow
	remote   policy.Note
	attempts []policy.Attempt
	err      error
	fin      store.NoteFinish
	done     store.NoteRow
}

func (o *noteSend) lease(ctx context.Context) (bool, NoteResult, error) {
	n, ok, err := o.s.db.Notes.LeaseNote(ctx, o.id, o.s.lease())
	if err != nil || !ok {
		return false, NoteResult{Note: n}, err
	}
	o.n = n
	return true, NoteResult{}, nil
}

func (o *noteSend) call(_, opCtx context.Context) (bool, NoteResult, error) {
	o.remote, o.attempts, o.err = o.s.api.AddNote(opCtx, o.n.ItemID, o.n.Key, o.n.Text)
	return false, NoteResult{}, nil
}

func (o *noteSend) afterCall() {
	if f := o.s.team.afterNoteCall; f != nil {
		f(o.n)
	}
}

func (o *noteSend) callErr() error { return o.err }

func (o *noteSend) judge(ctx context.Context) {
	n := o.n
	o.fin = store.NoteFinish{On: policy.EventAnswered, Lease: n.Sends, Remote: &o.remote, Event: "note added", Attempts: o.attempts}
	if o.err == nil {
		return
	}
	oc := outcome(nil, o.err)
	// What the note meets is the event an action would meet; where it
	// leads a note (turned away: back to queued) is policy's note
	// machine, applied by the store.
	o.fin.On, o.fin.Remote, o.fin.ErrCode, o.fin.Err, o.fin.Event = oc.On, nil, oc.ErrCode, oc.Err, "note "+oc.Event
	if client.IsNotOffered(o.err) {
		o.s.setVersion(ctx, "1.0")
	}
	o.err = o.s.explainConflict(ctx, &o.fin.Item, &o.fin.Err, n.ItemID, 0, time.Time{}, o.err)
}

func (o *noteSend) record(ctx context.Context) (err error) {
	o.done, err = o.s.db.Notes.FinishNote(ctx, o.n.ID, o.fin)
	return err
}

func (o *noteSend) unrecorded(_ context.Context, err error) (NoteResult, error) {
	n := o.n
	if errors.Is(err, store.ErrFenced) {
		// This process held the note past its lease and another took it
		// over: the store kept this send's evidence, and the note (done
		// is as the other process holds it) is that process's to finish.
		return NoteResult{Note: o.done, Err: o.err}, &notRecorded{fenced: true, err: policy.Errorf(policy.CodeOutcomeUnknown,
			"the note on item %s was sent (key %s) but its outcome was not recorded: this process held it past its lease "+
				"and another process took it over; that process reconciles it with the same key, or 'reviewer flush' will", n.ItemID, n.Key)}
	}
	return NoteResult{}, err
}

func (o *noteSend) recorded(ctx, opCtx context.Context) NoteResult {
	s, n := o.s, o.n
	if o.done.State == policy.ActionDone {
		// The note moved the item to a new revision that its answer does
		// not carry: read it, so the reviewer's next action does not meet
		// ITEM_CHANGED over their own note. Best effort; a sync does it too.
		if it, _, err := s.api.GetItem(opCtx, n.ItemID); err == nil && it.ID == n.ItemID {
			_ = s.applyAnswered(ctx, it, s.who(), "", "")
		}
	}
	return NoteResult{Note: o.done, Err: o.err}
}
