package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// An action never goes out blind on a service that guards with If-Match
// (contract 1.1). When the cache does not know the revision the reviewer
// saw (the item was synced from a 1.0 service, or before the cache had the
// column), the first send reads the item and compares it with what she
// saw (policy.Unseen): unchanged, the action goes out with the item's
// current revision, kept on the action for every later send; changed, it
// stops as ITEM_CHANGED and says what changed, and nothing is sent.

// replayOnly is the revision an action goes out with when only its key's
// stored answer may come back (client.IfMatchReplayOnly).
const replayOnly = -1

// firstRead is what a read before a send found.
type firstRead struct {
	attempts []policy.Attempt
	err      error       // the read failed: nothing was sent
	item     policy.Item // the item as the service holds it now
	changed  []string    // what she decides on changed (policy.Unseen)
	match    int64       // the If-Match to send (0: none, the answer carried no revision; replayOnly)
}

// readFirst reads the item of an action whose revision the cache does not
// know. A repeat of a send that may have reached the service (the action
// was sending or unknown) is never stopped here: only an answer for its key
// ends it. When the item changed, the repeat goes out with an If-Match
// below the current revision, which no revision can match again (they only
// grow): the service returns the stored answer of a key it knows, and runs
// nothing for one it does not (412).
func (s *core) readFirst(ctx, opCtx context.Context, a store.Action) firstRead {
	it, attempts, err := s.api.GetItem(opCtx, a.ItemID)
	s.observe(err)
	r := firstRead{attempts: attempts, item: it}
	if err == nil {
		err = s.foreignAnswer(ctx, a.ItemID, it)
	}
	if err == nil && it.Status == policy.StatusInvalid {
		err = &client.Error{Code: policy.CodeInvalidResponse, Class: client.ClassBadAnswer, HTTPStatus: 200,
			Message: "the item read before sending broke the contract: " + it.Problem}
	}
	if err != nil {
		r.err = fmt.Errorf("the console does not know which revision of item %s you saw, and reading it failed, so nothing was sent: %w",
			a.ItemID, err)
		return r
	}
	if it.Revision == 0 {
		return r // the service reports no revision: there is nothing to match
	}
	saw, kept, err := s.sawOf(ctx, a)
	if err != nil {
		r.err = err
		return r
	}
	r.changed = policy.Unseen(saw, it, s.who(), seenIDs(saw))
	if !kept && len(r.changed) == 0 && saw.UpdatedAt.After(a.CreatedAt) {
		// Queued before actions kept what the reviewer saw, and a sync
		// has moved the cache on since: the cache is no account of what
		// she saw, so the item counts as changed.
		r.changed = []string{"synced since it was queued"}
	}
	switch {
	case len(r.changed) == 0:
		r.match = it.Revision
	case a.LeasedFrom == policy.ActionQueued:
		return r // the key's first send: it stops here (stopChanged)
	case it.Revision > 1:
		r.changed, r.match = nil, it.Revision-1
	default:
		r.changed, r.match = nil, replayOnly
	}
	// Keep what was learnt: the cache's item gets its revision (through
	// the same upsert a sync uses), and the action goes out with this
	// If-Match every time from now on.
	rctx, cancel := recordCtx(ctx)
	defer cancel()
	if len(r.changed) == 0 {
		if err := s.db.Sync.ApplyItem(rctx, it, "", "", ""); err != nil {
			r.err = err
			return r
		}
	}
	if err := s.db.Outbox.SetActionRevision(rctx, a.ID, r.match); err != nil {
		r.err = err
	}
	return r
}

// sawOf is what the reviewer saw of the item when she queued the action:
// kept with the action, or for an action older than that, the cache's item
// with the notes the cache holds.
func (s *core) sawOf(ctx context.Context, a store.Action) (saw policy.Item, kept bool, err error) {
	saw, kept, err = s.db.Outbox.ActionSeen(ctx, a.ID)
	if err != nil || kept {
		return saw, kept, err
	}
	row, err := s.db.Items.Item(ctx, a.ItemID)
	if err != nil {
		return saw, false, err
	}
	saw = row.Item
	ids, err := s.db.Notes.ItemNoteIDs(ctx, a.ItemID)
	for _, id := range ids {
		saw.Notes = append(saw.Notes, policy.Note{ID: id})
	}
	return saw, false, err
}

func seenIDs(saw policy.Item) func(string) bool {
	ids := make(map[string]bool, len(saw.Notes))
	for _, n := range saw.Notes {
		ids[n.ID] = true
	}
	return func(id string) bool { return ids[id] }
}

// stopChanged ends an action whose first send found the item changed since
// the reviewer saw it, as a 412 would have: failed with ITEM_CHANGED and
// the item as it is now applied, nothing sent. Acting again is her choice,
// on what she now sees.
func (s *core) stopChanged(ctx context.Context, a store.Action, rf firstRead, read []policy.Attempt) (Result, error) {
	rctx, cancel := recordCtx(ctx)
	defer cancel()
	v := seen{at: a.CreatedAt}
	if saw, _, err := s.sawOf(rctx, a); err == nil {
		v.item, v.cached = saw, true
	}
	it := rf.item
	sentence := s.conflictSentence(v, &client.Error{Code: policy.CodeItemChanged, Item: &it})
	ce := &ConflictError{Code: policy.CodeItemChanged, Item: &it,
		Sentence: sentence + "; nothing was sent (what changed: " + strings.Join(rf.changed, ", ") + ")"}
	fin := store.Finish{On: policy.EventRefused, Lease: a.Sends, ErrCode: policy.CodeItemChanged, Err: ce.Sentence,
		Event:   "not sent: " + string(policy.CodeItemChanged) + ", the item changed since the reviewer saw it",
		Applied: &it, Attempts: read}
	done, err := s.db.Outbox.FinishAction(rctx, a.ID, fin)
	if err != nil {
		return Result{Action: a, Err: ce}, s.unrecorded(a, fin, err)
	}
	return Result{Action: done, Err: ce}, nil
}

// ownNoteOnly reports whether a 412 on a send at revision sent shows that
// nothing the reviewer decides on changed since she acted, but her own
// doing (a note she wrote): then the action goes out again with the same
// key at the revision the 412 carried (next), once. A change by anyone else
// stops it. Only an action that kept what she saw can tell.
func (s *core) ownNoteOnly(ctx context.Context, a store.Action, sent int64, callErr error) (next int64, ok bool) {
	e, isConflict := client.AsConflict(callErr)
	if !isConflict || e.Code != policy.CodeItemChanged || e.Item == nil || sent == 0 || e.Item.Revision <= sent {
		return 0, false
	}
	if s.foreignAnswer(ctx, a.ItemID, *e.Item) != nil {
		return 0, false
	}
	saw, kept, err := s.db.Outbox.ActionSeen(ctx, a.ID)
	if err != nil || !kept {
		return 0, false
	}
	if len(policy.Unseen(saw, *e.Item, s.who(), seenIDs(saw))) > 0 {
		return 0, false
	}
	return e.Item.Revision, true
}
