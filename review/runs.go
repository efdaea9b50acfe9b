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
	Actions []store.Action
	// Refused are the plan's items that changed between the plan and the
	// confirmation (an action opened, a status moved): left out, not queued.
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
	Items    []ItemResult
	// Stopped says why the run stopped starting sends before the end ("" when
	// it did not): the rest stays queued for the next flush.
	Stopped string
}

// RunOptions tune a run.
type RunOptions struct {
	Concurrency int               // actions in flight at once (default 4)
	Progress    func(RunProgress) // after each action's send; from the run's goroutines
}

// SendRun sends a run's queued actions (and reconciles its unknown ones)
// with a bounded concurrency. It stops starting sends when the circuit is
// open, a rate-limit wait runs, the API is unreachable, or ctx ends; what
// was not started stays queued, visibly, for the next flush.
func (s *Service) SendRun(ctx context.Context, runID int64, opts RunOptions) (RunResult, error) {
	run, acts, err := s.runWithActions(ctx, runID)
	if err != nil {
		return RunResult{}, err
	}
	n := opts.Concurrency
	if n <= 0 {
		n = DefaultBulkConcurrency
	}
	var (
		mu      sync.Mutex
		state   = make(map[int64]policy.ActionState, len(acts))
		errs    = map[int64]error{}
		stopped string
		fatal   error
	)
	for _, a := range acts {
		state[a.ID] = a.State
	}
	progress := func() RunProgress { // under mu
		p := RunProgress{Total: len(acts)}
		for _, st := range state {
			p.add(st, 1)
		}
		return p
	}
	stop := func(why string) {
		if stopped == "" {
			stopped = why
		}
	}
	if opts.Progress != nil {
		opts.Progress(progress())
	}
	// At most n sends in flight; each action is one task, in the run's order.
	// A task never fails the group: what a send met is recorded per action,
	// and a failure to record stops the others from starting (fatal).
	var g errgroup.Group
	g.SetLimit(n)
	for _, a := range acts {
		if a.State != policy.ActionQueued && a.State != policy.ActionUnknown {
			continue
		}
		id := a.ID
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
			state[id] = policy.ActionSending
			mu.Unlock()
			res, err := s.send(ctx, id)
			mu.Lock()
			if errors.Is(err, store.ErrFenced) { // sent; another process took it over and records it
				state[id], errs[id] = res.Action.State, err
			} else if err != nil {
				if fatal == nil {
					fatal = err
				}
				stop("the cache could not record an outcome")
			} else {
				state[id] = res.Action.State
				if res.Err != nil {
					errs[id] = res.Err
				}
				if why := stopReason(res); why != "" {
					stop(why)
				}
			}
			p := progress()
			mu.Unlock()
			if opts.Progress != nil {
				opts.Progress(p)
			}
			return nil
		})
	}
	_ = g.Wait()

	// The store is the truth: read every action as it is now.
	rctx, cancel := recordCtx(ctx)
	defer cancel()
	final, err := s.db.RunActions(rctx, runID)
	if err != nil {
		return RunResult{}, errors.Join(fatal, err)
	}
	out := RunResult{Run: run, Progress: RunProgress{Total: len(final)}, Stopped: stopped}
	for _, a := range final {
		out.Progress.add(a.State, 1)
		out.Items = append(out.Items, ItemResult{Action: a, Err: errs[a.ID]})
	}
	if opts.Progress != nil {
		opts.Progress(out.Progress)
	}
	return out, fatal
}

// mayStart says why no new send may start now, or "".
func (s *Service) mayStart(ctx context.Context) string {
	if ctx.Err() != nil {
		return "stopped by the reviewer"
	}
	if h := s.api.Health(); h.CircuitOpen {
		return "the API stopped answering: calls paused until " + h.RetryAt.Local().Format("15:04:05")
	}
	if until, err := s.db.RateLimitedUntil(ctx); err == nil && s.now().Before(until) {
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
func (s *Service) CancelRun(ctx context.Context, runID int64) ([]store.Action, error) {
	return s.db.CancelRun(ctx, runID, s.who())
}

// RunState reads a run's actions as they are now (the result list after a
// restart, or after a flush sent the rest).
func (s *Service) RunState(ctx context.Context, runID int64) (RunResult, error) {
	run, acts, err := s.runWithActions(ctx, runID)
	if err != nil {
		return RunResult{}, err
	}
	out := RunResult{Run: run, Progress: RunProgress{Total: len(acts)}}
	for _, a := range acts {
		out.Progress.add(a.State, 1)
		out.Items = append(out.Items, ItemResult{Action: a})
	}
	return out, nil
}

// runWithActions reads a run and its actions as they are now.
func (s *Service) runWithActions(ctx context.Context, runID int64) (store.BulkRun, []store.Action, error) {
	run, err := s.db.Run(ctx, runID)
	if err != nil {
		return run, nil, err
	}
	acts, err := s.db.RunActions(ctx, runID)
	return run, acts, err
}
