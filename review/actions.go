package review

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Result is the outcome of an action that was written to the outbox.
type Result struct {
	Action store.Action
	Item   *policy.Item // the service's answer, when it came
	Err    error        // why it is not done: the client's error
}

// newKey makes an Idempotency-Key (a random UUID, version 4).
func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Resubmit re-runs the analysis of an item whose code a re-run may help.
// It is refused, before any call, when policy says no: the code needs a new
// file, an action is already open, or a rate-limit wait is running.
func (s *Service) Resubmit(ctx context.Context, itemID string) (Result, error) {
	return s.act(ctx, store.Action{ItemID: itemID, Kind: policy.ActionResubmit}, nil, policy.CanResubmit)
}

// RequestFile asks the customer for a new file, for an item whose code a
// re-run cannot help. An empty message takes the one policy suggests.
func (s *Service) RequestFile(ctx context.Context, itemID, message string) (Result, error) {
	message = strings.TrimSpace(message)
	if message == "" {
		sit, err := s.db.Situation(ctx, itemID)
		if err != nil {
			return Result{}, err
		}
		message = policy.Info(sit.Item.ErrorCode).CustomerMessage
	}
	return s.act(ctx, store.Action{ItemID: itemID, Kind: policy.ActionFileRequest, Message: message}, nil, policy.CanRequestFile)
}

// Replace uploads the file the customer sent. The file is checked first (at
// most 10 MiB; a JPEG, PNG, WebP or PDF by its content) and kept in the
// outbox, so a queued upload survives a restart.
func (s *Service) Replace(ctx context.Context, itemID, fileName string, data []byte) (Result, error) {
	if _, err := policy.CheckFile(data); err != nil {
		return Result{}, err
	}
	return s.act(ctx, store.Action{ItemID: itemID, Kind: policy.ActionReplacement, FileName: filepath.Base(fileName)}, data, policy.CanReplace)
}

// ReplaceFile reads a file from disk and uploads it with Replace.
func (s *Service) ReplaceFile(ctx context.Context, itemID, path string) (Result, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Result{}, policy.Errorf(policy.CodeInvalidFile, "cannot read %s: %v", path, err)
	}
	if fi.Size() > policy.MaxFileSize {
		return Result{}, policy.Errorf(policy.CodeInvalidFile, "%s is %.1f MiB; the service takes at most 10 MiB", path, float64(fi.Size())/(1<<20))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Result{}, policy.Errorf(policy.CodeInvalidFile, "cannot read %s: %v", path, err)
	}
	return s.Replace(ctx, itemID, path, data)
}

func (s *Service) act(ctx context.Context, a store.Action, file []byte, check func(policy.Situation) error) (Result, error) {
	a.Key, a.Reviewer = s.newKey(), s.who()
	a, err := s.db.CreateAction(ctx, a, file, s.notHeldByOther(check)) // team.go: a claim refuses too
	if err != nil {
		return Result{}, err
	}
	if s.afterIntent != nil {
		s.afterIntent(a)
	}
	return s.send(ctx, a.ID)
}

// lease is how long a sending action holds its item: the operation's
// deadline plus the reserve. A lease that runs out means the sender died.
func (s *Service) lease() time.Duration { return s.budget.Lease() + s.budget.Reserve }

// send claims an action and sends it once, with its stored key.
func (s *Service) send(ctx context.Context, id int64) (Result, error) {
	a, ok, err := s.db.ClaimAction(ctx, id, s.lease())
	if err != nil {
		return Result{}, err
	}
	if !ok { // another sender holds it, or it is settled
		cur, err := s.db.Action(ctx, id)
		return Result{Action: cur}, err
	}
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	// The revision stored when the action was queued (team.go).
	rev, err := s.db.ActionRevision(ctx, a.ID)
	if err != nil {
		return Result{}, err
	}
	match := client.IfMatch(rev)

	var item *policy.Item
	var attempts []client.Attempt
	var callErr error
	switch a.Kind {
	case policy.ActionResubmit:
		var it policy.Item
		it, attempts, callErr = s.api.Resubmit(opCtx, a.ItemID, a.Key, match)
		item = &it
	case policy.ActionReplacement:
		data, err := s.db.ActionFile(ctx, a.ID)
		if err != nil {
			return Result{}, err
		}
		var it policy.Item
		it, attempts, callErr = s.api.Replace(opCtx, a.ItemID, a.Key, a.FileName, data, match)
		item = &it
	case policy.ActionFileRequest:
		var fr client.FileRequest
		sit, err := s.db.Situation(ctx, a.ItemID)
		if err != nil {
			return Result{}, err
		}
		reason := sit.Item.ErrorCode
		if sit.Item.ReportedCode != "" {
			reason = policy.Code(sit.Item.ReportedCode)
		}
		fr, attempts, callErr = s.api.RequestFile(opCtx, a.ItemID, a.Key, reason, a.Message, match)
		if callErr == nil {
			it := sit.Item
			it.Status, it.ErrorCode, it.ErrorMessage = policy.StatusAwaitingFile, "", ""
			it.Revision = nextRevision(it.Revision, rev)
			if fr.CreatedAt.After(it.UpdatedAt) {
				it.UpdatedAt = fr.CreatedAt
			}
			item = &it
		}
	}
	s.observe(callErr)
	fin := outcome(item, callErr)
	callErr = s.explainConflict(ctx, &fin.Item, &fin.Err, a.ItemID, rev, callErr) // team.go: 412 and 409 apply the item
	fin.Attempts = evidence(attempts)
	rctx, rcancel := recordCtx(ctx)
	defer rcancel()
	done, err := s.db.FinishAction(rctx, a.ID, fin)
	if err != nil {
		return Result{}, err
	}
	res := Result{Action: done, Err: callErr}
	if fin.State == policy.ActionDone {
		res.Item = fin.Item
	}
	return res, nil
}

// outcome decides what an action's send comes to.
func outcome(item *policy.Item, err error) store.Finish {
	if err == nil {
		return store.Finish{State: policy.ActionDone, Item: item, Event: "done: " + policy.Describe(*item)}
	}
	f := store.Finish{ErrCode: policy.ErrorCode(err), Err: policy.ErrorMessage(err)}
	e, ok := client.AsError(err)
	if !ok {
		f.State, f.Event = policy.ActionQueued, "not sent: "+string(f.ErrCode)
		return f
	}
	switch e.Class {
	case client.ClassNotConnected, client.ClassNotStarted, client.ClassUntrusted:
		// Nothing reached the API: the action waits for a flush.
		f.State, f.Event = policy.ActionQueued, "queued: "+string(e.Code)
	case client.ClassUnknown, client.ClassBadAnswer:
		// It may have been carried out: reconcile with the same key.
		f.State, f.Event = policy.ActionUnknown, "outcome unknown: "+string(e.Code)
	case client.ClassRateLimited:
		f.State, f.RateLimitedUntil = policy.ActionFailed, e.RetryAfter
		f.Event = "refused by the API: RATE_LIMITED until " + e.RetryAfter.Local().Format("15:04:05")
	default:
		if e.Code == policy.CodeIdempotencyKeyInUse {
			// The first request with this key is still running.
			f.State, f.Event = policy.ActionUnknown, "still running at the API: "+string(e.Code)
			break
		}
		f.State, f.Event = policy.ActionFailed, "refused by the API: "+string(e.Code)
	}
	return f
}

// FlushResult counts what a flush did.
type FlushResult struct {
	Results                                []Result
	Done, Failed, Unknown, Queued, Skipped int
	Notes                                  []NoteResult // team.go: the notes outbox
}

// Flush sends queued actions and reconciles unknown ones (and sending ones
// whose process died), oldest first, each with its stored key. Two flushes
// at once are safe: each action is claimed by one of them.
func (s *Service) Flush(ctx context.Context) (FlushResult, error) {
	var fr FlushResult
	pending, err := s.db.PendingActions(ctx)
	if err != nil {
		return fr, err
	}
	for _, a := range pending {
		if ctx.Err() != nil {
			break
		}
		r, err := s.send(ctx, a.ID)
		if err != nil {
			return fr, err
		}
		fr.Results = append(fr.Results, r)
		switch r.Action.State {
		case policy.ActionDone:
			fr.Done++
		case policy.ActionFailed:
			fr.Failed++
		case policy.ActionUnknown:
			fr.Unknown++
		case policy.ActionQueued:
			fr.Queued++
		default:
			fr.Skipped++
		}
	}
	return fr, s.flushNotes(ctx, &fr) // team.go
}

// Cancel cancels a queued action.
func (s *Service) Cancel(ctx context.Context, actionID int64) (store.Action, error) {
	return s.db.CancelAction(ctx, actionID, s.who())
}

// Outbox lists the actions not done yet.
func (s *Service) Outbox(ctx context.Context) ([]store.Action, error) { return s.db.Outbox(ctx) }
