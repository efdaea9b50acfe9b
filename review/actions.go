package review

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/internal/document"
	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Result is the outcome of an action that was written to the outbox.
type Result struct {
	Action   store.Action
	Item     *policy.Item // the service's answer, when it came
	Err      error        // why it is not done: the client's error
	Unleased Unleased     // why this process did not send it ("" when it did)
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
func (s *ActionService) Resubmit(ctx context.Context, itemID string) (Result, error) {
	return s.act(ctx, store.Action{ItemID: itemID, Kind: policy.ActionResubmit}, nil)
}

// RequestFile asks the customer for a new file, for an item whose code a
// re-run cannot help. The message is the reviewer's, as
// policy.CheckCustomerMessage keeps it; one it refuses is never queued.
func (s *ActionService) RequestFile(ctx context.Context, itemID, message string) (Result, error) {
	// An empty message is refused, never swapped for a default the
	// reviewer did not see; so is one with control or bidi characters, or
	// too long, before it is queued. What is sent is what she wrote, trimmed,
	// with Windows line breaks made newlines.
	message, err := policy.CheckCustomerMessage(message)
	if err != nil {
		return Result{}, err
	}
	return s.act(ctx, store.Action{ItemID: itemID, Kind: policy.ActionFileRequest, Message: message}, nil)
}

// Replace uploads the file the customer sent. The file is checked first,
// before anything is queued: at most 10 MiB, a JPEG, PNG, WebP or PDF by
// its content, and then as the viewer checks one before showing it
// (checkUpload). It is kept in the outbox, so a queued upload survives a
// restart.
func (s *ActionService) Replace(ctx context.Context, itemID, fileName string, data []byte, opt ReplaceOptions) (Result, error) {
	if err := s.checkUpload(ctx, data, opt); err != nil {
		return Result{}, err
	}
	return s.act(ctx, store.Action{ItemID: itemID, Kind: policy.ActionReplacement, FileName: filepath.Base(fileName)}, data)
}

// ReplaceOptions are the reviewer's answers to what the console asked
// before an upload.
type ReplaceOptions struct {
	// Unchecked: she was told that the console could not check this file
	// (a kind of picture its viewer does not decode, no PDF renderer) and
	// uploads it all the same, since the service may read it. A file the
	// console judged bad is refused whatever she says.
	Unchecked bool
}

// checkUpload refuses, before anything is queued, a file that the
// service would be paid to analyse for nothing (rule 8): what
// policy.CheckFile refuses by size and first bytes, and what the viewer
// would call damaged or refuse (document.Inspect: a picture cut short, a
// header that lies about its size, noise behind a JPEG's header, a PDF the
// renderer cannot open), in the viewer's own words. A file the console
// could not judge goes only with opt.Unchecked.
func (s *core) checkUpload(ctx context.Context, data []byte, opt ReplaceOptions) error {
	if _, err := policy.CheckFile(data); err != nil {
		return err
	}
	_, err := document.Inspect(ctx, data, s.files.documentLimits())
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return err
	case document.CannotCheck(err):
		if opt.Unchecked {
			return nil
		}
		return policy.Errorf(policy.CodeFileUnchecked, "%s The service may still read it: upload it only if you choose to, knowing it was not checked", err)
	}
	return policy.Errorf(policy.CodeInvalidFile, "%v", err)
}

// ReplaceFile reads a file from disk and uploads it with Replace.
func (s *ActionService) ReplaceFile(ctx context.Context, itemID, path string, opt ReplaceOptions) (Result, error) {
	data, err := readUpload(path)
	if err != nil {
		return Result{}, err
	}
	return s.Replace(ctx, itemID, path, data, opt)
}

// CheckUploadFile reads a file from disk and checks it as Replace would,
// queuing nothing: the upload dialog says what is wrong before she
// presses Upload. A file the console could not check is FILE_UNCHECKED.
func (s *ActionService) CheckUploadFile(ctx context.Context, path string) error {
	data, err := readUpload(path)
	if err != nil {
		return err
	}
	return s.checkUpload(ctx, data, ReplaceOptions{})
}

// readUpload reads a file a reviewer names for an upload. Anything but a
// regular file (a FIFO, a device, a folder) is refused unopened, and the
// read stops at 10 MiB + 1 byte whatever size the file reports.
func readUpload(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, policy.MaxFileSize)
	if err != nil {
		var tooLarge *safefile.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, policy.Errorf(policy.CodeInvalidFile, "%s is larger than 10 MiB, the most the service takes", path)
		}
		var nr *safefile.NotRegularError
		if errors.As(err, &nr) {
			return nil, policy.Errorf(policy.CodeInvalidFile, "%v", err)
		}
		return nil, policy.Errorf(policy.CodeInvalidFile, "cannot read %s: %v", path, unwrapPath(err))
	}
	return data, nil
}

// unwrapPath drops the operation and path of an *os.PathError: the caller
// names the path itself.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// act writes the action's intent, judged by its kind's Check (policy's
// descriptor), and sends it.
func (s *core) act(ctx context.Context, a store.Action, file []byte) (Result, error) {
	return s.actWith(ctx, a, file, policy.Intent{})
}

// actWith is act for a kind that carries what the reviewer chose (in):
// the descriptor's Allowed judges both inside the write's transaction.
func (s *core) actWith(ctx context.Context, a store.Action, file []byte, in policy.Intent) (Result, error) {
	spec, ok := policy.DescribeKind(a.Kind)
	if !ok {
		return Result{}, policy.Errorf(policy.CodeInvalidInput, "the console does not know actions of kind %q", a.Kind)
	}
	check := func(sit policy.Situation) error { _, err := spec.Allowed(sit, in); return err }
	a.Key, a.Reviewer = s.newKey(), s.who()
	a, err := s.db.Outbox.CreateAction(ctx, a, file, s.notHeldByOther(check)) // conflicts.go: a claim refuses too
	if err != nil {
		return Result{}, err
	}
	if s.afterIntent != nil {
		s.afterIntent(a)
	}
	return s.send(ctx, a.ID)
}

// lease is how long a sending action holds its item (policy.Budget.Lease).
// A lease that runs out means the sender died or stalled.
func (s *core) lease() time.Duration { return s.budget.Lease() }

// post makes the action's one request with its key and, for a kind that
// carries one (policy's descriptor), If-Match rev. err is a failure before
// any request (nothing was sent); callErr is the request's.
func (s *core) post(ctx, opCtx context.Context, a store.Action, rev int64) (item *policy.Item, attempts []policy.Attempt, callErr, err error) {
	spec, ok := policy.DescribeKind(a.Kind)
	call := actionCalls[a.Kind]
	if !ok || call == nil {
		return nil, nil, nil, policy.Errorf(policy.CodeInvalidInput, "the console does not know how to send an action of kind %q", a.Kind)
	}
	var opts []client.CallOption
	switch {
	case !spec.IfMatch:
	case rev == replayOnly:
		opts = append(opts, client.IfMatchReplayOnly())
	default:
		opts = append(opts, client.IfMatch(rev))
	}
	return call(s, ctx, opCtx, a, rev, opts)
}

// actionCall is the request of one kind of action: what the workflow
// adds to its descriptor (policy.KindSpec), the client's call.
type actionCall func(s *core, ctx, opCtx context.Context, a store.Action, rev int64, opts []client.CallOption) (
	item *policy.Item, attempts []policy.Attempt, callErr, err error)

// actionCalls are the requests of the kinds of actions; filled in init,
// as they lead back to post.
var actionCalls map[policy.ActionKind]actionCall

// againCalls make a failed action's intent again (QueueAgain), by kind.
var againCalls map[policy.ActionKind]func(s *ActionService, ctx context.Context, a store.Action) (Result, error)

func init() {
	actionCalls = map[policy.ActionKind]actionCall{
		policy.ActionResubmit:     postResubmit,
		policy.ActionReplacement:  postReplacement,
		policy.ActionFileRequest:  postFileRequest,
		policy.ActionDecision:     postDecision, // decisions.go
		policy.ActionConfirmation: postConfirmation,
	}
	againCalls = map[policy.ActionKind]func(s *ActionService, ctx context.Context, a store.Action) (Result, error){
		policy.ActionResubmit: func(s *ActionService, ctx context.Context, a store.Action) (Result, error) {
			return s.Resubmit(ctx, a.ItemID)
		},
		policy.ActionFileRequest: func(s *ActionService, ctx context.Context, a store.Action) (Result, error) {
			return s.RequestFile(ctx, a.ItemID, a.Message)
		},
		policy.ActionReplacement: func(s *ActionService, ctx context.Context, a store.Action) (Result, error) {
			// She chose this file when it was first queued, told then if the
			// console could not check it; a damaged one is refused still.
			return s.ReplaceAgain(ctx, a.ItemID, ReplaceOptions{Unchecked: true})
		},
		policy.ActionDecision:     decisionAgain, // decisions.go
		policy.ActionConfirmation: decisionAgain,
	}
}

func postResubmit(s *core, _, opCtx context.Context, a store.Action, _ int64, opts []client.CallOption) (*policy.Item, []policy.Attempt, error, error) {
	it, attempts, callErr := s.api.Resubmit(opCtx, a.ItemID, a.Key, opts...)
	return &it, attempts, callErr, nil
}

func postReplacement(s *core, ctx, opCtx context.Context, a store.Action, _ int64, opts []client.CallOption) (*policy.Item, []policy.Attempt, error, error) {
	data, err := s.db.Outbox.ActionFile(ctx, a.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	it, attempts, callErr := s.api.Replace(opCtx, a.ItemID, a.Key, a.FileName, data, opts...)
	return &it, attempts, callErr, nil
}

// postFileRequest asks for a new file, with the code the service reported
// as its reason. Its answer is the request, not the item: the item after
// it is policy's (the kind's AfterDone).
func postFileRequest(s *core, ctx, opCtx context.Context, a store.Action, rev int64, opts []client.CallOption) (*policy.Item, []policy.Attempt, error, error) {
	sit, err := s.db.Outbox.Situation(ctx, a.ItemID)
	if err != nil {
		return nil, nil, nil, err
	}
	reason := sit.Item.ErrorCode
	if sit.Item.ReportedCode != "" {
		reason = policy.Code(sit.Item.ReportedCode)
	}
	fr, attempts, callErr := s.api.RequestFile(opCtx, a.ItemID, a.Key, reason, a.Message, opts...)
	if callErr != nil {
		return nil, attempts, callErr, nil
	}
	spec, _ := policy.DescribeKind(a.Kind)
	it := spec.AfterDone(sit.Item, rev, fr.CreatedAt)
	return &it, attempts, nil, nil
}

// release ends a lease that failed before any call: nothing was sent.
func (s *core) release(ctx context.Context, a store.Action, cause error) (Result, error) {
	rctx, rcancel := recordCtx(ctx)
	defer rcancel()
	fin := notSentFinish(a, cause, nil)
	if _, err := s.db.Outbox.FinishAction(rctx, a.ID, fin); err != nil {
		return Result{Action: a}, fmt.Errorf("%w (and recording that nothing was sent failed: %v; the action will be reconciled after its lease)", cause, err)
	}
	return Result{Action: a}, cause
}

// notSent ends a send that stopped before its request with what it met:
// the action goes back to queued (or stays unknown), and the Result says
// why, so that the caller reports the state the action is in.
func (s *core) notSent(ctx context.Context, a store.Action, cause error, attempts []policy.Attempt) (Result, error) {
	rctx, rcancel := recordCtx(ctx)
	defer rcancel()
	fin := notSentFinish(a, cause, attempts)
	done, err := s.db.Outbox.FinishAction(rctx, a.ID, fin)
	if err != nil {
		return Result{Action: a, Err: cause}, s.unrecorded(a, fin, err)
	}
	return Result{Action: done, Err: cause}, nil
}

// notSentFinish is the record of a send that stopped before its request:
// what it met, and the evidence of a read made before it, if any.
func notSentFinish(a store.Action, cause error, attempts []policy.Attempt) store.Finish {
	return store.Finish{On: policy.EventNotSent, Lease: a.Sends, ErrCode: policy.ErrorCode(cause), Err: policy.ErrorMessage(cause),
		Event: "not sent: " + string(policy.ErrorCode(cause)), Attempts: attempts}
}

// unrecorded is the error for a send whose outcome could not be written:
// the request went out (or may have), so it is an unknown outcome to this
// process, and it says how it ends. A fenced sender's action belongs to
// the process that took it over; any other failure leaves the action
// sending, and a flush after its lease takes it over and reconciles it.
func (s *core) unrecorded(a store.Action, fin store.Finish, err error) error {
	what := fmt.Sprintf("the %s of item %s was sent (key %s) but its outcome was not recorded", policy.ActionWord(a.Kind), a.ItemID, a.Key)
	if fin.On == policy.EventNotSent {
		what = fmt.Sprintf("the %s of item %s (key %s) may have been sent, and its outcome was not recorded", policy.ActionWord(a.Kind), a.ItemID, a.Key)
	}
	if errors.Is(err, store.ErrFenced) {
		return &notRecorded{fenced: true, err: policy.Errorf(policy.CodeOutcomeUnknown,
			"%s: this process held it past its lease and another process took it over; "+
				"that process reconciles it with the same key, or 'reviewer flush' will", what)}
	}
	return &notRecorded{err: policy.Errorf(policy.CodeOutcomeUnknown,
		"%s (%v); 'reviewer flush' will reconcile it with the same key after its lease ends at %s",
		what, err, a.LeaseUntil.Local().Format("15:04:05"))}
}

// notRecorded is an outcome that was not recorded after a call was made.
type notRecorded struct {
	err    *policy.Error
	fenced bool // another sender took the action over
}

func (e *notRecorded) Error() string { return e.err.Error() }
func (e *notRecorded) Unwrap() error { return e.err }

// Is lets errors.Is(err, store.ErrFenced) tell a fenced sender.
func (e *notRecorded) Is(target error) bool { return e.fenced && target == store.ErrFenced }

// outcome decides what event an action's send met (the action machine in
// policy says where it leads) and what the audit log says of it.
func outcome(item *policy.Item, err error) store.Finish {
	if err == nil {
		return store.Finish{On: policy.EventAnswered, Item: item, Event: "done: " + policy.Describe(*item)}
	}
	f := store.Finish{ErrCode: policy.ErrorCode(err), Err: policy.ErrorMessage(err)}
	f.On = event(err)
	switch f.On {
	case policy.EventNotSent:
		f.Event = "not sent: " + string(f.ErrCode)
	case policy.EventNoAnswer:
		f.Event = "outcome unknown: " + string(f.ErrCode)
		if f.ErrCode == policy.CodeIdempotencyKeyInUse {
			f.Event = "still running at the API: " + string(f.ErrCode)
		}
	case policy.EventRateLimited:
		f.Event = "rate limited by the API: " + string(f.ErrCode)
	case policy.EventTurnedAway:
		f.Event = "turned away by the API: " + string(f.ErrCode)
	default:
		f.Event = "refused by the API: " + string(f.ErrCode)
	}
	if e, ok := client.AsError(err); ok && e.Class == client.ClassRateLimited {
		f.RateLimitedUntil = e.RetryAfter
		f.Event += " until " + e.RetryAfter.Local().Format("15:04:05")
	}
	return f
}

// event is what a call's error says about its request, for the action
// machine: whether anything of it reached the service, and whether the
// service answered for its key.
func event(err error) policy.ActionEvent {
	if err == nil {
		return policy.EventAnswered
	}
	e, ok := client.AsError(err)
	if !ok {
		// Not the client's classification: nobody can say what reached
		// the API, so it is reconciled, never repeated with a new key.
		return policy.EventNoAnswer
	}
	switch e.Class {
	case client.ClassNotConnected, client.ClassNotStarted, client.ClassUntrusted:
		return policy.EventNotSent
	case client.ClassUnknown, client.ClassBadAnswer:
		return policy.EventNoAnswer
	case client.ClassRateLimited:
		return policy.EventRateLimited // a 429 ran nothing, by the contract's word
	case client.ClassAnsweredNo:
		switch {
		case e.Code == policy.CodeIdempotencyKeyInUse:
			return policy.EventNoAnswer // the first request with this key is still running
		case e.ReportedCode == "", // no error body of the service's: a proxy's answer, not one for the key
			e.HTTPStatus >= 500, e.Code == policy.CodeUnauthenticated, e.Code == policy.CodeForbidden,
			e.Code == policy.CodeServiceUnavailable, e.Code == policy.CodeClaimed:
			return policy.EventTurnedAway
		}
		return policy.EventRefused
	}
	return policy.EventNoAnswer
}

// Unleased says why a process did not send an action it meant to: it did
// not get the action's lease. (A bulk plan's policy.Skip is another idea:
// why a plan leaves an item out.)
type Unleased string

const (
	Leased          Unleased = ""        // it got the lease, and sent
	UnleasedBusy    Unleased = "busy"    // another process holds its lease (Action.LeaseUntil)
	UnleasedSettled Unleased = "settled" // it was settled (done, failed or cancelled) meanwhile
	UnleasedWaiting Unleased = "waiting" // queued after a 429, until its Retry-After (Action.NotBefore)
)

// FlushResult counts what one flush did: only the actions this process
// sent, and apart from them those it left to another process.
type FlushResult struct {
	Results                       []Result // the actions this process sent
	Done, Failed, Unknown, Queued int      // what those came to
	Busy                          []store.Action
	Settled                       int // settled by another process since the flush listed them
	// ByOthers are those Settled actions, as another process left them
	// (done, failed or cancelled): another process's send is not this
	// one's, but the reviewer is told what it came to.
	ByOthers  []store.Action
	TakenOver int // sent, then taken over by another process after this one's lease ran out
	Skipped   int // len(Busy) + Settled
	// Waiting are the queued actions the service rate limited, not sent
	// before their Retry-After (NotBefore): AwaitRateLimit sends them then.
	Waiting []store.Action
	Notes   []NoteResult // notes.go: the notes outbox, sent after the actions
	// NotesWaiting are the notes of the outbox the flush did not send
	// because the API is rate limiting until NotesUntil (a 429's
	// Retry-After): AwaitRateLimit sends them then, after the actions.
	NotesWaiting []store.NoteRow
	NotesUntil   time.Time
}

// WaitingUntil is when the last rate-limit wait of fr.Waiting and
// fr.NotesWaiting ends (zero: none).
func (fr FlushResult) WaitingUntil() time.Time {
	var until time.Time
	for _, a := range fr.Waiting {
		if a.NotBefore.After(until) {
			until = a.NotBefore
		}
	}
	if len(fr.NotesWaiting) > 0 && fr.NotesUntil.After(until) {
		until = fr.NotesUntil
	}
	return until
}

// Sent is how many actions this flush sent.
func (fr FlushResult) Sent() int { return len(fr.Results) }

// Flush sends queued actions and reconciles unknown ones (and sending ones
// whose lease ran out), oldest first, each with its stored key. Two flushes
// at once are safe: each action is leased by one of them, and each counts
// only what it sent. An action another process holds is reported in Busy.
func (s *ActionService) Flush(ctx context.Context) (FlushResult, error) {
	var fr FlushResult
	// files.go: the retention of failed replacements' files. It is
	// housekeeping, never a reason not to send: a failure (a busy cache)
	// is tried again by the next flush.
	_ = s.purgeKeptFiles(ctx)
	open, err := s.db.Outbox.Outbox(ctx)
	if err != nil {
		return fr, err
	}
	// The API asked us to wait (a 429's Retry-After): nothing is sent
	// before then, neither a queued action nor a reconciliation; each
	// waits (AwaitRateLimit sends them then).
	until, err := s.db.Sync.RateLimitedUntil(ctx)
	if err != nil {
		return fr, err
	}
	for _, a := range open {
		if ctx.Err() != nil {
			break
		}
		if now := s.now(); now.Before(until) && (a.State != policy.ActionSending || a.LeaseUntil.Before(now)) {
			if a.NotBefore.Before(until) {
				a.NotBefore = until
			}
			fr.Waiting = append(fr.Waiting, a)
			continue
		}
		r, err := s.send(ctx, a.ID)
		if err := fr.add(r, err); err != nil {
			return fr, err
		}
	}
	return fr, s.flushNotes(ctx, &fr) // notes.go
}

// add counts one send of a flush: sent by this process, left to the one
// that holds it (Busy), or settled meanwhile.
func (fr *FlushResult) add(r Result, err error) error {
	if errors.Is(err, store.ErrFenced) {
		fr.TakenOver++
		return nil
	}
	if err != nil {
		return err
	}
	switch r.Unleased {
	case UnleasedWaiting:
		fr.Waiting = append(fr.Waiting, r.Action)
		return nil
	case UnleasedBusy:
		fr.Busy = append(fr.Busy, r.Action)
		fr.Skipped++
		return nil
	case UnleasedSettled:
		fr.Settled++
		fr.Skipped++
		fr.ByOthers = append(fr.ByOthers, r.Action)
		return nil
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
	}
	return nil
}

// othersPoll is how often AwaitOthers reads an action that another process
// is sending: the cache is shared through SQLite, which tells no one.
const othersPoll = 50 * time.Millisecond

// AwaitOthers waits for the actions a flush found another process sending
// (fr.Busy) to end, each at most until its lease runs out, so that the
// flush can say what they came to instead of "unknown". One that the
// other process settled (done, failed, cancelled) moves to ByOthers and
// Settled. One that it left open (unknown, queued) or whose lease ran out
// (the sender died) is sent by this flush, with its stored key, as Flush
// would have: it counts as this flush's own. When ctx ends first, or the
// wait passes until, what is still held stays in Busy.
func (s *ActionService) AwaitOthers(ctx context.Context, fr *FlushResult, until time.Time) error {
	busy := fr.Busy
	fr.Busy = nil
	for i := 0; i < len(busy); i++ {
		a, err := s.awaitLease(ctx, busy[i], until)
		if err != nil {
			fr.Busy = append(fr.Busy, busy[i:]...)
			if ctx.Err() != nil || errors.Is(err, errWaitedEnough) {
				return nil // stopped waiting: still someone else's
			}
			return err
		}
		fr.Skipped-- // no longer skipped: counted below, as it ended
		if !a.State.Open() {
			fr.Settled++
			fr.Skipped++
			fr.ByOthers = append(fr.ByOthers, a)
			continue
		}
		r, err := s.send(ctx, a.ID)
		if r.Unleased == UnleasedBusy && err == nil { // a third process took it: wait for that one
			fr.Skipped++
			busy = append(busy, r.Action)
			continue
		}
		if err := fr.add(r, err); err != nil {
			fr.Busy = append(fr.Busy, busy[i+1:]...)
			return err
		}
	}
	return nil
}

// AwaitRateLimit waits for the rate-limit waits of the actions a flush
// left queued (fr.Waiting) that end by until, and sends each when its
// Retry-After has passed, with its stored key: the service said a 429 ran
// nothing, and that it may be asked again then. Then, as Flush does after
// the actions, it sends the notes the wait held back (fr.NotesWaiting),
// when the wait ends by until. What ends after until, or when ctx ends,
// stays in Waiting and NotesWaiting (queued: the next flush sends it).
func (s *ActionService) AwaitRateLimit(ctx context.Context, fr *FlushResult, until time.Time) error {
	if err := s.awaitActions(ctx, fr, until); err != nil {
		return err
	}
	// A send above may have met another 429, and moved the wait on: each
	// pass of flushNotes reads it again, and puts back what it holds.
	for len(fr.NotesWaiting) > 0 && !fr.NotesUntil.After(until) && s.sleepUntil(ctx, fr.NotesUntil) {
		fr.NotesWaiting, fr.NotesUntil = nil, time.Time{}
		if err := s.flushNotes(ctx, fr); err != nil {
			return err
		}
	}
	return nil
}

// sleepUntil waits until t on the workflow's clock; false when ctx ends first.
func (s *core) sleepUntil(ctx context.Context, t time.Time) bool {
	wait := t.Sub(s.now())
	if wait <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(wait)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

// awaitActions is AwaitRateLimit's wait for the actions of fr.Waiting.
func (s *core) awaitActions(ctx context.Context, fr *FlushResult, until time.Time) error {
	waiting := fr.Waiting
	fr.Waiting = nil
	sort.SliceStable(waiting, func(i, j int) bool { return waiting[i].NotBefore.Before(waiting[j].NotBefore) })
	for i := 0; i < len(waiting); i++ {
		a := waiting[i]
		if a.NotBefore.After(until) || ctx.Err() != nil {
			fr.Waiting = append(fr.Waiting, waiting[i:]...)
			return nil
		}
		if !s.sleepUntil(ctx, a.NotBefore) {
			fr.Waiting = append(fr.Waiting, waiting[i:]...)
			return nil
		}
		r, err := s.send(ctx, a.ID)
		if r.Unleased == UnleasedWaiting && err == nil && !r.Action.NotBefore.After(until) {
			// Another 429 meanwhile (another process's send): its new
			// wait, if it ends in time.
			waiting = append(waiting, r.Action)
			continue
		}
		if err := fr.add(r, err); err != nil {
			fr.Waiting = append(fr.Waiting, waiting[i+1:]...)
			return err
		}
	}
	return nil
}

// errWaitedEnough ends a wait for another process's send at its limit.
var errWaitedEnough = errors.New("waited long enough")

// awaitLease reads an action until it is no longer being sent under a live
// lease: settled, left open by its sender, or its lease ran out; or until
// the wait's limit (errWaitedEnough).
func (s *core) awaitLease(ctx context.Context, a store.Action, until time.Time) (store.Action, error) {
	t := time.NewTimer(othersPoll)
	defer t.Stop()
	for {
		cur, err := s.db.Outbox.Action(ctx, a.ID)
		if err != nil {
			return a, err
		}
		now := s.now()
		if cur.State != policy.ActionSending || cur.LeaseUntil.Before(now) {
			return cur, nil
		}
		if !now.Before(until) {
			return cur, errWaitedEnough
		}
		t.Reset(min(othersPoll, until.Sub(now)))
		select {
		case <-ctx.Done():
			return cur, ctx.Err()
		case <-t.C:
		}
	}
}

// Cancel cancels a queued action: one that nothing of has left.
func (s *ActionService) Cancel(ctx context.Context, actionID int64) (store.Action, error) {
	return s.db.Outbox.CancelAction(ctx, actionID, s.who())
}

// Outbox lists the actions not done yet.
func (s *ActionService) Outbox(ctx context.Context) ([]store.Action, error) {
	return s.db.Outbox.Outbox(ctx)
}

// OutboxNotes lists the notes written here not done yet (contract 1.1:
// notes have an outbox of their own). Notes cost nothing.
func (s *ActionService) OutboxNotes(ctx context.Context) ([]store.NoteRow, error) {
	return s.db.Notes.OpenNotes(ctx)
}

// CancelNote withdraws a note that was never sent.
func (s *ActionService) CancelNote(ctx context.Context, id int64) (store.NoteRow, error) {
	return s.db.Notes.CancelNote(ctx, id, s.who())
}

// QueueAgain makes a failed action's intent again, as a new action with a
// new Idempotency-Key, and sends it: the reviewer's own choice, in one
// step, after the service turned it away for now (policy.MayQueueAgain: a
// 503, which may have run the work, so a paid re-run may be paid twice;
// the window says so). The new action is judged as any other (an open
// action, a claim, a status that moved refuse it); a replacement sends
// the file the failed one kept.
func (s *ActionService) QueueAgain(ctx context.Context, actionID int64) (Result, error) {
	a, err := s.db.Outbox.Action(ctx, actionID)
	if err != nil {
		return Result{}, err
	}
	if !policy.MayQueueAgain(a.State, a.LastErrorCode) {
		return Result{}, policy.Errorf(policy.CodeConflict, "the %s of item %s is %s (%s): only one the service turned away for now (%s) is queued again",
			policy.ActionWord(a.Kind), a.ItemID, a.State, a.LastErrorCode, policy.CodeServiceUnavailable)
	}
	if again := againCalls[a.Kind]; again != nil {
		return again(s, ctx, a)
	}
	return Result{}, policy.Errorf(policy.CodeConflict, "an action of kind %s cannot be queued again", a.Kind)
}
