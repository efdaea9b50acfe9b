package review

import (
	"context"
	"errors"
	"golang.org/x/sync/errgroup"
	"sync"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// A bulk run: the actions one confirmation queued (Confirm, bulk.go), sent
// with a bounded concurrency, counted by state, and withdrawn as a group
// while still queued.

// DefaultBulkConcurrency is how many actions of a run are in flight at once.
const DefaultBulkConcurrency = 4

// Run is a confirmed bulk action: its actions are queued.
type Run struct {
	store.BulkRun
	// Queued is how many actions the confirmation queued, and LeftOut how
	// many of the plan's items it left out.
	Queued, LeftOut int
	// Actions are the actions queued and Refused the plan's items that
	// changed between the plan and the confirmation (an action opened, a
	// status moved): left out, not queued. ConfirmEach holds neither.
	Actions []store.Action
	Refused []store.Refusal
}

// RunProgress counts a run's actions by state.
type RunProgress struct {
	Total     int
	Done      int // the service carried it out
	Failed    int // the service said no
	Unknown   int // sent, no answer: the next flush reconciles it with the same key
	Queued    int // not sent (yet): goes out with the next flush, or can be cancelled
	Sending   int
	Cancelled int
}

// progressOf is the progress of a run counted by state (store.RunStore.RunCounts).
func progressOf(counts map[policy.ActionState]int) RunProgress {
	var p RunProgress
	for st, n := range counts {
		p.Total += n
		p.add(st, n)
	}
	return p
}

func (p *RunProgress) add(st policy.ActionState, n int) {
	switch st {
	case policy.ActionDone:
		p.Done += n
	case policy.ActionFailed:
		p.Failed += n
	case policy.ActionUnknown:
		p.Unknown += n
	case policy.ActionQueued:
		p.Queued += n
	case policy.ActionSending:
		p.Sending += n
	case policy.ActionCancelled:
		p.Cancelled += n
	}
}

// Settled is how many actions have an outcome (done, failed or cancelled).
func (p RunProgress) Settled() int { return p.Done + p.Failed + p.Cancelled }

// ItemResult is one item's outcome in a run.
type ItemResult struct {
	Action store.Action
	Err    error // why it is not done, when the send said
}

// RunResult is a run after sending.
type RunResult struct {
	Run      store.BulkRun
	Progress RunProgress
	// Items are the run's actions as they are after sending (none with
	// RunOptions.CountsOnly: EachRunAction lists them).
	Items []ItemResult
	// Stopped says why the run stopped starting sends before the end ("" when
	// it did not): the rest stays queued for the next flush.
	Stopped string
}

// RunOptions tune a run.
type RunOptions struct {
	Concurrency int               // actions in flight at once (default 4)
	Progress    func(RunProgress) // after each action's send; from the run's goroutines
	// CountsOnly leaves RunResult.Items empty: the run is sent and counted
	// in memory that does not grow with it, however large.
	CountsOnly bool
}

// SummaryError is SendRun's error when the run was sent as far as it could
// go but its summary could not be read from the cache: the actions are
// durable, each with its key, and the Progress returned is what this
// process saw of them.
type SummaryError struct{ Err error }

func (e *SummaryError) Error() string { return "the summary could not be read: " + e.Err.Error() }
func (e *SummaryError) Unwrap() error { return e.Err }

// errHalt ends the walk over a run's actions once no more may start.
var errHalt = errors.New("no more sends start")

// SendRun sends a run's queued actions (and reconciles its unknown ones)
// with a bounded concurrency. It stops starting sends when the circuit is
// open, a rate-limit wait runs, the API is unreachable, or ctx ends; what
// was not started stays queued, visibly, for the next flush.
//
// Its memory does not grow with the run: the actions are counted by state
// in the cache, read a page at a time, and followed by their counts. The
// reads of the cache are local: they have no network deadline, and the
// summary at the end is read even after ctx ended (the reviewer is owed
// it); when it cannot be read, the error is a *SummaryError and Progress
// is what this process saw.
func (s *RunService) SendRun(ctx context.Context, runID int64, opts RunOptions) (RunResult, error) {
	run, err := s.db.Runs.Run(ctx, runID)
	if err != nil {
		return RunResult{}, err
	}
	counts, err := s.db.Runs.RunCounts(ctx, runID)
	if err != nil {
		return RunResult{Run: run}, err
	}
	n := opts.Concurrency
	if n <= 0 {
		n = DefaultBulkConcurrency
	}
	var (
		mu      sync.Mutex
		seen    = progressOf(counts) // under mu
		errs    = map[int64]error{}  // why an action is not done, when the send said (not with CountsOnly)
		stopped string
		fatal   error
	)
	move := func(from, to policy.ActionState) { // under mu
		seen.add(from, -1)
		seen.add(to, 1)
	}
	stop := func(why string) {
		if stopped == "" {
			stopped = why
		}
	}
	if opts.Progress != nil {
		opts.Progress(seen)
	}
	// At most n sends in flight; each action is one task, in the run's order,
	// read a page at a time. A task never fails the group: what a send met
	// is recorded per action, and a failure to record stops the others from
	// starting (fatal).
	var g errgroup.Group
	g.SetLimit(n)
	walk := s.db.Runs.EachRunAction(ctx, runID, []policy.ActionState{policy.ActionQueued, policy.ActionUnknown}, func(a store.Action) error {
		mu.Lock()
		halt := stopped != "" || fatal != nil
		mu.Unlock()
		if halt {
			return errHalt
		}
		id, from := a.ID, a.State
		g.Go(func() error {
			mu.Lock()
			halt := stopped != "" || fatal != nil
			mu.Unlock()
			if !halt {
				if why := s.mayStart(ctx); why != "" {
					mu.Lock()
					stop(why)
					mu.Unlock()
					halt = true
				}
			}
			if halt {
				return nil // stays queued for the next flush
			}
			mu.Lock()
			move(from, policy.ActionSending)
			mu.Unlock()
			res, err := s.send(ctx, id)
			mu.Lock()
			if errors.Is(err, store.ErrFenced) { // sent; another process took it over and records it
				move(policy.ActionSending, res.Action.State)
				if !opts.CountsOnly {
					errs[id] = err
				}
			} else if err != nil {
				if fatal == nil {
					fatal = err
				}
				stop("the cache could not record an outcome")
			} else {
				move(policy.ActionSending, res.Action.State)
				if res.Err != nil && !opts.CountsOnly {
					errs[id] = res.Err
				}
				if why := stopReason(res); why != "" {
					stop(why)
				}
			}
			p := seen
			mu.Unlock()
			if opts.Progress != nil {
				opts.Progress(p)
			}
			return nil
		})
		return nil
	})
	_ = g.Wait()
	switch {
	case walk == nil || errors.Is(walk, errHalt):
	case ctx.Err() != nil:
		stop("stopped by the reviewer")
	default: // the cache could not be read: what was not started stays queued
		if fatal == nil {
			fatal = walk
		}
		stop("the cache could not be read")
	}

	// The store is the truth: read the run as it is now. A local read,
	// with no network deadline, and owed to the reviewer even after a stop.
	rctx := context.WithoutCancel(ctx)
	if s.beforeSummary != nil {
		s.beforeSummary()
	}
	out := RunResult{Run: run, Progress: seen, Stopped: stopped}
	if counts, err = s.db.Runs.RunCounts(rctx, runID); err != nil {
		return out, errors.Join(fatal, &SummaryError{Err: err})
	}
	out.Progress = progressOf(counts)
	if !opts.CountsOnly {
		err := s.db.Runs.EachRunAction(rctx, runID, nil, func(a store.Action) error {
			out.Items = append(out.Items, ItemResult{Action: a, Err: errs[a.ID]})
			return nil
		})
		if err != nil {
			out.Items = nil
			return out, errors.Join(fatal, &SummaryError{Err: err})
		}
	}
	if opts.Progress != nil {
		opts.Progress(out.Progress)
	}
	return out, fatal
}

// EachRunAction calls fn with each action of a run as it is now, in the
// order queued, a page at a time (a run of any size in flat memory).
func (s *RunService) EachRunAction(ctx context.Context, runID int64, fn func(store.Action) error) error {
	return s.db.Runs.EachRunAction(ctx, runID, nil, fn)
}

// mayStart says why no new send may start now, or "".
func (s *core) mayStart(ctx context.Context) string {
	if ctx.Err() != nil {
		return "stopped by the reviewer"
	}
	if h := s.api.Health(); h.CircuitOpen {
		return "the API stopped answering: calls paused until " + h.RetryAt.Local().Format("15:04:05")
	}
	if until, err := s.db.Sync.RateLimitedUntil(ctx); err == nil && s.now().Before(until) {
		return "the API asked us to wait until " + until.Local().Format("15:04:05")
	}
	return ""
}

// stopReason says why a send's outcome stops the run from starting more.
func stopReason(res Result) string {
	switch code := policy.ErrorCode(res.Err); {
	case code == policy.CodeRateLimited && !res.Action.NotBefore.IsZero():
		return "the API is rate-limiting (" + string(code) + "): the rest goes out after " + res.Action.NotBefore.Local().Format("15:04:05")
	case code == policy.CodeRateLimited:
		return "the API is rate-limiting (" + string(code) + ")"
	case res.Action.State == policy.ActionQueued && res.Err != nil:
		return "nothing reached the API (" + string(code) + ")"
	}
	return ""
}

// CancelRun cancels, as a group, the actions of a run not yet sent.
func (s *RunService) CancelRun(ctx context.Context, runID int64) ([]store.Action, error) {
	return s.db.Runs.CancelRun(ctx, runID, s.who())
}

// RunState reads a run's actions as they are now (the result list after a
// restart, or after a flush sent the rest).
func (s *RunService) RunState(ctx context.Context, runID int64) (RunResult, error) {
	run, err := s.db.Runs.Run(ctx, runID)
	if err != nil {
		return RunResult{}, err
	}
	out := RunResult{Run: run}
	err = s.db.Runs.EachRunAction(ctx, runID, nil, func(a store.Action) error {
		out.Progress.Total++
		out.Progress.add(a.State, 1)
		out.Items = append(out.Items, ItemResult{Action: a})
		return nil
	})
	if err != nil {
		return RunResult{}, err
	}
	return out, nil
}
