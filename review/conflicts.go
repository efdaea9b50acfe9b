package review

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// Every paid action carries If-Match with the revision stored when it was
// queued (contract 1.1); a 412 ITEM_CHANGED or a 409 CLAIMED applies the
// item in the answer and says who or what changed it.

// ConflictError is the API's no that names who or what: ITEM_CHANGED (the
// item is not at the revision the reviewer saw) or CLAIMED (another reviewer
// holds it). Item is the item as it is now, already applied to the cache.
type ConflictError struct {
	Code     policy.Code
	Sentence string       // "re-analysed 2 min ago: now review, score 62"
	Item     *policy.Item // nil when the answer carried none
	cause    error
}

func (e *ConflictError) Error() string { return string(e.Code) + ": " + e.Sentence }

// ConsoleCode lets policy.ErrorCode read the code.
func (e *ConflictError) ConsoleCode() policy.Code { return e.Code }

// Unwrap is the client's error, when the API answered (nil: refused
// locally from what the cache knows).
func (e *ConflictError) Unwrap() error { return e.cause }

// notHeldByOther refuses, before any call, an action on an item that the
// cache knows another reviewer holds; then check judges as before.
func (s *core) notHeldByOther(check func(policy.Situation) error) func(policy.Situation) error {
	return func(sit policy.Situation) error {
		if c := sit.Item.HeldByOther(s.who(), sit.Now); c != nil {
			it := sit.Item
			return &ConflictError{Code: policy.CodeClaimed, Item: &it, Sentence: claimSentence(*c, sit.Now) + "; nothing was sent"}
		}
		return check(sit)
	}
}

// explainConflict turns a 412 or a 409 CLAIMED into a ConflictError, and
// sets the item of the answer to be applied with the outcome. sent is the
// revision the reviewer acted on (an action's If-Match; 0: what the cache
// holds now) and queued when they did (an action's queued time; zero: now).
func (s *core) explainConflict(ctx context.Context, apply **policy.Item, detail *string, itemID string, sent int64, queued time.Time, err error) error {
	e, ok := client.AsConflict(err)
	if !ok {
		return err
	}
	// What the cache holds, read even when the caller's context has ended:
	// the sentence is part of recording the outcome.
	rctx, cancel := recordCtx(ctx)
	defer cancel()
	v := seen{revision: sent, at: queued}
	if before, rerr := s.db.Items.Item(rctx, itemID); rerr == nil {
		v.item, v.cached = before.Item, true
	}
	ce := &ConflictError{Code: e.Code, Item: e.Item, cause: err}
	if e.Item != nil && s.foreignAnswer(ctx, itemID, *e.Item) == nil {
		*apply = e.Item
	}
	ce.Sentence = s.conflictSentence(v, e)
	*detail = ce.Sentence
	return ce
}

// seen is what the console knows of the item the reviewer acted on.
type seen struct {
	item     policy.Item // the item as the cache holds it now
	cached   bool        // false: the cache could not be read, item is empty
	revision int64       // the revision the reviewer acted on (0: the cached one)
	at       time.Time   // when they acted on it (zero: now, on the cached item)
}

// acted is the revision the reviewer acted on, 0 when not known.
func (v seen) acted() int64 {
	if v.revision > 0 {
		return v.revision
	}
	if v.cached {
		return v.item.Revision
	}
	return 0
}

// newSince is the moment after which a note is news to the reviewer, and
// whether there is one. While the cache holds the revision they acted on,
// it is that revision's time. A sync may have moved the cache on since an
// action was queued (it then holds the very change that refused it, note
// and all), and a note is not stamped at its revision's instant: it is
// older by however long the service took between the two. Then the cached
// time says nothing of what the reviewer saw, and the queued time does: a
// note written after it was news to them.
func (v seen) newSince() (time.Time, bool) {
	if v.cached && (v.revision == 0 || v.item.Revision <= v.revision) {
		return v.item.UpdatedAt, true
	}
	return v.at, !v.at.IsZero()
}

func (s *core) conflictSentence(v seen, e *client.Error) string {
	now := s.now()
	it := e.Item
	if e.Code == policy.CodeClaimed {
		if it != nil && it.Claim != nil {
			return claimSentence(*it.Claim, now)
		}
		return "another reviewer holds this item"
	}
	if it == nil {
		return "the item changed since you saw it; sync to see how"
	}
	before := v.item
	ago := policy.Ago(now.Sub(it.UpdatedAt))
	since, sinceKnown := v.newSince()
	var what string
	switch {
	case v.cached && decisionSentence(before, *it, ago) != "": // decisions.go
		what = decisionSentence(before, *it, ago)
	// Without the cached item there is nothing to compare with: an empty
	// one would make any answer look re-analysed or changed in status.
	case v.cached && it.Attempt > before.Attempt && (it.Status == policy.StatusScored || it.Status == policy.StatusError || it.Status == policy.StatusInvalid):
		what = "re-analysed " + ago + ": now " + stateText(*it)
	case v.cached && it.Status != before.Status && it.Status == policy.StatusAwaitingFile:
		what = "a new file was requested from the customer " + ago
	case v.cached && it.Status != before.Status:
		what = "changed " + ago + ": now " + stateText(*it)
	case sinceKnown && len(it.Notes) > 0 && !it.Notes[len(it.Notes)-1].CreatedAt.Before(since):
		n := it.Notes[len(it.Notes)-1]
		what = titled(n.Author) + " added a note " + policy.Ago(now.Sub(n.CreatedAt))
	case it.Claim != nil:
		what = "claimed by " + it.Claim.Reviewer + " " + ago
	case v.acted() > 0:
		what = fmt.Sprintf("changed %s: now %s (revision %d; you saw %d)", ago, stateText(*it), it.Revision, v.acted())
	default:
		what = fmt.Sprintf("changed %s: now %s (revision %d)", ago, stateText(*it), it.Revision)
	}
	if c := it.HeldByOther(s.who(), now); c != nil && !strings.HasPrefix(what, "claimed") {
		what += "; " + claimSentence(*c, now)
	}
	return what
}

func titled(name string) string {
	if name == "" {
		return "someone"
	}
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}

func stateText(it policy.Item) string {
	switch it.Status {
	case policy.StatusScored:
		if it.RiskScore != nil {
			return fmt.Sprintf("%s, score %d", it.Recommendation, *it.RiskScore)
		}
	case policy.StatusError:
		return "failed with " + string(it.ErrorCode)
	case policy.StatusPending:
		return "being analysed"
	case policy.StatusAwaitingFile:
		return "waiting for a new file"
	}
	return "not a valid answer (" + string(policy.CodeInvalidResponse) + ")"
}
