package review

import (
	"context"
	"fmt"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// A reviewer's decision on an item, and a second reviewer's confirmation
// (contract 1.2). Both are two more kinds of the outbox (policy's table of
// kinds): written with their Idempotency-Key under UNIQUE before any call,
// with the revision she saw as If-Match, sent by the one sender
// (sender.go), reconciled with the same key when unknown, cancelled only
// while nothing was sent, and each holds the item's one open action.
// policy judges them first (the kind's Check and Judge: CanDecide,
// CheckReason, CanConfirm): a refusal queues nothing and makes no call.

// DecisionAPI is what decisions need of the API (contract 1.2).
type DecisionAPI interface {
	ReasonCodes(ctx context.Context) ([]policy.ReasonCode, []policy.Attempt, error)
	Decide(ctx context.Context, id, key string, outcome policy.Outcome, reasonCode, comment string, opts ...client.CallOption) (policy.Item, []policy.Attempt, error)
	Confirm(ctx context.Context, id, decisionID, key string, agree bool, comment string, opts ...client.CallOption) (policy.Item, []policy.Attempt, error)
}

// Decisions is the workflow of decisions: the core under the name of its
// noun, as every service of the workflow.
type Decisions struct{ *core }

// Decide queues the reviewer's decision on an item and sends it. It is
// refused before anything is queued when policy says no: an item that was
// not checked (in error, an invalid answer, pending) is never cleared, a
// pending one is not decided, a reason the service's list does not give
// for the outcome, a reject or an escalation without a comment, another
// open action, a service that does not take decisions (1.0, 1.1).
func (d *Decisions) Decide(ctx context.Context, itemID string, outcome policy.Outcome, reason, comment string) (Result, error) {
	s := d.core
	list, err := d.listForDecide(ctx)
	if err != nil {
		return Result{}, err
	}
	in := policy.Intent{Outcome: outcome, Reason: reason, Comment: comment, Me: s.who(), Reasons: list}
	a := store.Action{ItemID: itemID, Kind: policy.ActionDecision, Outcome: outcome, ReasonCode: reason}
	return d.queue(ctx, a, in)
}

// Confirm queues a second reviewer's answer to the item's current
// decision awaiting confirmation (agree: confirm it; otherwise return it,
// with a comment saying why) and sends it. Its author is refused before
// anything is queued.
func (d *Decisions) Confirm(ctx context.Context, itemID string, agree bool, comment string) (Result, error) {
	in := policy.Intent{Agree: agree, Comment: comment, Me: d.who()}
	a := store.Action{ItemID: itemID, Kind: policy.ActionConfirmation, Agree: agree}
	return d.queue(ctx, a, in)
}

// queue judges the intent on the item as the cache holds it (a refusal
// queues nothing), then writes the action, judged again in the same
// transaction, and sends it.
func (d *Decisions) queue(ctx context.Context, a store.Action, in policy.Intent) (Result, error) {
	s := d.core
	spec, _ := policy.DescribeKind(a.Kind)
	sit, err := s.db.Outbox.Situation(ctx, a.ItemID)
	if err != nil {
		return Result{}, err
	}
	if in, err = spec.Allowed(sit, in); err != nil {
		return Result{}, err
	}
	a.Comment, a.DecisionID = in.Comment, in.DecisionID
	return s.actWith(ctx, a, nil, in)
}

// listForDecide is the reason list a decision is judged by: the one the
// cache keeps (the last sync's), or the service's when the cache holds
// none yet.
func (d *Decisions) listForDecide(ctx context.Context) ([]policy.ReasonCode, error) {
	list, err := d.db.Sync.ReasonCodes(ctx)
	if err != nil || len(list) > 0 {
		return list, err
	}
	list, _, err = d.ReasonCodes(ctx)
	return list, err
}

// ReasonCodes is the service's list of reason codes, read from the
// service first and kept; when the service cannot be reached, the list
// the cache kept (offline is true). A service that does not take
// decisions is said so.
func (d *Decisions) ReasonCodes(ctx context.Context) (list []policy.ReasonCode, offline bool, err error) {
	s := d.core
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	list, attempts, err := s.api.ReasonCodes(opCtx)
	s.observe(err)
	_ = s.db.Evidence.RecordAttempts(ctx, "", "reason-codes", attempts)
	switch {
	case err == nil:
		return list, false, s.db.Sync.SetReasonCodes(ctx, list)
	case client.IsNotOffered(err):
		return nil, false, policy.Errorf(policy.CodeNotOffered, "this service does not take decisions (it speaks contract 1.0 or 1.1): it has no reason codes")
	}
	kept, kerr := s.db.Sync.ReasonCodes(ctx)
	if kerr != nil || len(kept) == 0 {
		return nil, false, fmt.Errorf("the service's reason codes could not be read, and none were kept from a sync: %w", err)
	}
	return kept, true, nil
}

// refreshReasons keeps the service's list for offline work, at a sync.
// Best effort: a sync goes on without it.
func (d *Decisions) refreshReasons(ctx context.Context) {
	_, _, _ = d.ReasonCodes(ctx)
}

// postDecision sends a decision with its stored key and intent.
func postDecision(s *core, _, opCtx context.Context, a store.Action, _ int64, opts []client.CallOption) (*policy.Item, []policy.Attempt, error, error) {
	it, attempts, callErr := s.api.Decide(opCtx, a.ItemID, a.Key, a.Outcome, a.ReasonCode, a.Comment, opts...)
	return &it, attempts, callErr, nil
}

// postConfirmation sends a confirmation with its stored key and answer.
func postConfirmation(s *core, _, opCtx context.Context, a store.Action, _ int64, opts []client.CallOption) (*policy.Item, []policy.Attempt, error, error) {
	it, attempts, callErr := s.api.Confirm(opCtx, a.ItemID, a.DecisionID, a.Key, a.Agree, a.Comment, opts...)
	return &it, attempts, callErr, nil
}

// decisionAgain makes a decision or a confirmation that the service
// turned away for now (QueueAgain) again, as she chose it.
func decisionAgain(s *ActionService, ctx context.Context, a store.Action) (Result, error) {
	d := &Decisions{s.core}
	if a.Kind == policy.ActionConfirmation {
		return d.Confirm(ctx, a.ItemID, a.Agree, a.Comment)
	}
	return d.Decide(ctx, a.ItemID, a.Outcome, a.ReasonCode, a.Comment)
}

// decisionSentence says, for a 412, what another reviewer decided on the
// item since she saw it ("" when no new decision is the change).
func decisionSentence(before, now policy.Item, ago string) string {
	d := now.CurrentDecision()
	if d == nil {
		return ""
	}
	if b := before.CurrentDecision(); b != nil && b.ID == d.ID && b.State == d.State {
		return ""
	}
	who := titled(d.By)
	switch {
	case d.Confirmation != nil && d.Confirmation.Agree:
		return fmt.Sprintf("%s decided %s (%s), confirmed by %s %s", who, d.Outcome, d.ReasonCode, d.Confirmation.By, ago)
	case d.Confirmation != nil:
		return fmt.Sprintf("%s's decision to %s (%s) was returned by %s %s", who, d.Outcome, d.ReasonCode, d.Confirmation.By, ago)
	case d.State == policy.DecisionAwaiting:
		return fmt.Sprintf("%s decided %s (%s) %s, awaiting a second reviewer", who, d.Outcome, d.ReasonCode, ago)
	}
	return fmt.Sprintf("%s decided %s (%s) %s", who, d.Outcome, d.ReasonCode, ago)
}

// decisionCells are the CSV's cells of an item's current decision: its
// outcome, reason, author, state and confirmer (empty: none).
func decisionCells(it policy.Item) [5]string {
	d := it.CurrentDecision()
	if d == nil {
		return [5]string{}
	}
	conf := ""
	if d.Confirmation != nil {
		conf = d.Confirmation.By
	}
	return [5]string{string(d.Outcome), d.ReasonCode, d.By, string(d.State), conf}
}
