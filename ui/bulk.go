package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Bulk actions in the window: one dialog shows the plan (what it
// costs, what it leaves out and why), then the run's progress, then the
// result per item, with "Cancel the N not yet sent".

// bulkWorkflow is the part of the Workflow the bulk dialog uses.
type bulkWorkflow interface {
	PlanResubmit(ctx context.Context, sel review.Selection) (review.Plan, error)
	PlanRequestFiles(ctx context.Context, sel review.Selection) (review.Plan, error)
	Confirm(ctx context.Context, p review.Plan) (review.Run, error)
	SendRun(ctx context.Context, runID int64, opts review.RunOptions) (review.RunResult, error)
	CancelRun(ctx context.Context, runID int64) ([]store.Action, error)
}

// bulkScreen is the content of the bulk dialog.
type bulkScreen struct {
	wf   bulkWorkflow
	plan review.Plan

	headline, skipped, status *widget.Label
	messages                  map[policy.Code]*widget.Entry
	count                     *widget.Entry // the plan's count typed, over the bulk limit (nil: not asked)
	confirm, undo, stop       *widget.Button
	bar                       *widget.ProgressBar
	failuresOnly              *widget.Check
	results                   *widget.List
	content                   *fyne.Container

	// ctx is the run's: cancelled by Stop or when the dialog closes, so
	// that no further send starts (those under way end as the action
	// machine says).
	ctx    context.Context
	cancel context.CancelFunc
	// apply runs a widget update from the run's goroutine one at a time
	// with the window's own (Console.apply, when shown in the window).
	apply func(func())

	mu     sync.Mutex
	run    review.Run
	result review.RunResult
	shown  []review.ItemResult
	ended  chan struct{} // closed when the run has ended and is shown (tests)
	undone chan struct{} // gets a value when an undo has ended and is shown (tests)
}

func newBulkScreen(wf bulkWorkflow, p review.Plan) *bulkScreen {
	b := &bulkScreen{wf: wf, plan: p, ended: make(chan struct{}), undone: make(chan struct{}, 1)}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.apply = func(f func()) { f() }
	b.headline = widget.NewLabelWithStyle(p.Headline(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	b.skipped = widget.NewLabel(skippedText(p))
	b.skipped.Wrapping = fyne.TextWrapWord
	b.status = widget.NewLabel("Nothing is queued until you confirm.")
	b.status.Wrapping = fyne.TextWrapWord
	b.bar = widget.NewProgressBar()
	b.bar.Hide()
	b.confirm = widget.NewButton(confirmText(p), b.onConfirm)
	b.confirm.Importance = widget.HighImportance
	if len(p.Items) == 0 {
		b.confirm.Disable()
	}
	if p.NeedsCount() {
		// A plain click does not spend this many: the count is typed.
		b.confirm.Disable()
		b.count = widget.NewEntry()
		b.count.SetPlaceHolder(strconv.Itoa(p.Len()))
		b.count.OnChanged = func(text string) {
			if b.typedCount() == p.Len() {
				b.confirm.Enable()
			} else {
				b.confirm.Disable()
			}
		}
	}
	b.undo = widget.NewButton("", b.onUndo)
	b.undo.Hide()
	b.stop = widget.NewButton("Stop sending", b.onStop)
	b.stop.Hide()
	b.failuresOnly = widget.NewCheck("Show only what is not done", func(bool) { b.refreshResults() })
	b.failuresOnly.Hide()
	b.results = widget.NewList(func() int { return len(b.shown) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(resultLine(b.shown[i])) })
	b.results.Hide()

	top := container.NewVBox(b.headline, b.skipped)
	if p.Kind == policy.ActionFileRequest {
		b.messages = map[policy.Code]*widget.Entry{}
		for _, c := range p.Codes() {
			e := widget.NewMultiLineEntry()
			e.SetText(p.Messages[c])
			e.Wrapping = fyne.TextWrapWord
			e.SetMinRowsVisible(2)
			b.messages[c] = e
			top.Add(widget.NewLabel("Message to the customers for " + string(c) + " (once for all of them):"))
			top.Add(e)
		}
	}
	if b.count != nil {
		l := widget.NewLabel(fmt.Sprintf("This acts on %d items, more than the bulk limit of %d. Type %d to confirm:", p.Len(), p.Max, p.Len()))
		l.Wrapping = fyne.TextWrapWord
		top.Add(l)
		top.Add(b.count)
	}
	if !p.WaitUntil.IsZero() {
		top.Add(widget.NewLabel("The API asked us to wait until " + p.WaitUntil.Local().Format("15:04:05") +
			": the actions stay queued until then."))
	}
	top.Add(b.bar)
	top.Add(b.status)
	top.Add(container.NewHBox(b.confirm, b.stop, b.undo, b.failuresOnly))
	b.content = container.NewBorder(top, nil, nil, nil, b.results)
	return b
}

// typedCount is the number typed in the count entry (-1: none, or not a
// number).
func (b *bulkScreen) typedCount() int {
	if b.count == nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(b.count.Text))
	if err != nil {
		return -1
	}
	return n
}

func confirmText(p review.Plan) string {
	if p.Kind == policy.ActionResubmit {
		return fmt.Sprintf("Re-submit %d (%d paid)", len(p.Items), p.PaidAnalyses())
	}
	return fmt.Sprintf("Request %d new files", len(p.Items))
}

func skippedText(p review.Plan) string {
	lines := p.SkipLines()
	if len(lines) == 0 {
		return "Nothing is left out."
	}
	return "Left out: " + strings.Join(lines, "; ") + "."
}

func resultLine(r review.ItemResult) string {
	a := r.Action
	switch a.State {
	case policy.ActionDone:
		return a.ItemID + " · done"
	case policy.ActionQueued:
		return a.ItemID + " · not sent yet: queued for the next flush"
	case policy.ActionUnknown:
		return a.ItemID + " · outcome unknown: the next flush reconciles it"
	case policy.ActionFailed:
		return a.ItemID + " · refused by the API: " + string(a.LastErrorCode)
	case policy.ActionCancelled:
		return a.ItemID + " · cancelled, nothing sent"
	}
	return a.ItemID + " · " + string(a.State)
}

func progressText(p review.RunProgress) string {
	return fmt.Sprintf("%d of %d: %d done, %d refused, %d unknown, %d queued", p.Settled()+p.Unknown, p.Total,
		p.Done, p.Failed, p.Unknown, p.Queued)
}

// onConfirm queues the plan durably, then sends it off the UI goroutine.
func (b *bulkScreen) onConfirm() {
	if b.count != nil {
		if b.typedCount() != b.plan.Len() {
			return
		}
		b.plan.CountConfirmed = b.typedCount()
		b.count.Disable()
	}
	b.confirm.Disable()
	for c, e := range b.messages {
		if err := b.plan.SetMessage(c, e.Text); err != nil {
			b.status.SetText(policy.ErrorMessage(err))
			b.confirm.Enable()
			return
		}
		e.Disable()
	}
	b.status.SetText("Queuing…")
	plan := b.plan
	ctx := b.ctx
	go func() {
		run, err := b.wf.Confirm(ctx, plan)
		if err != nil && len(run.Actions) > 0 {
			// Stopped part-way (a busy cache, a cancel): what it queued
			// stays queued and goes out with the next flush, unless the
			// reviewer cancels it here.
			b.mu.Lock()
			b.run = run
			b.mu.Unlock()
			b.showNow(func() {
				b.status.SetText(fmt.Sprintf("Stopped after queuing %d of %d: %s. They go out with the next flush, or cancel them now.",
					len(run.Actions), plan.Len(), sentence(err)))
				b.undo.SetText(fmt.Sprintf("Cancel the %d not yet sent", len(run.Actions)))
				b.undo.Show()
			})
			close(b.ended)
			return
		}
		if err != nil {
			b.showLater(func() {
				b.status.SetText("Nothing queued: " + sentence(err))
				b.confirm.Enable()
				if b.count != nil {
					b.count.Enable()
				}
			})
			return
		}
		b.mu.Lock()
		b.run = run
		b.mu.Unlock()
		b.showLater(func() { b.bar.Show(); b.bar.Max = float64(len(run.Actions)); b.bar.SetValue(0); b.stop.Show() })
		res, err := b.wf.SendRun(ctx, run.ID, review.RunOptions{Progress: func(p review.RunProgress) {
			b.showLater(func() { b.bar.SetValue(float64(p.Settled() + p.Unknown)); b.status.SetText(progressText(p)) })
		}})
		b.showNow(func() { b.stop.Hide(); b.showResult(run, res, err) })
		close(b.ended)
	}()
}

// showNow runs a widget update from the run's goroutine on the UI
// goroutine, one at a time with the window's own, and waits for it.
func (b *bulkScreen) showNow(f func()) { fyne.DoAndWait(func() { b.apply(f) }) }

// showLater is showNow without the wait.
func (b *bulkScreen) showLater(f func()) { fyne.Do(func() { b.apply(f) }) }

// onStop stops the run from starting more sends. Those under way end as
// the action machine says (an answer, or an outcome that the next flush
// reconciles with the same key); what did not start stays queued.
func (b *bulkScreen) onStop() {
	b.cancel()
	b.stop.Disable()
	b.status.SetText("Stopping: no new send starts; those under way end first.")
}

func (b *bulkScreen) showResult(run review.Run, res review.RunResult, err error) {
	b.mu.Lock()
	b.result = res
	b.mu.Unlock()
	text := progressText(res.Progress)
	if len(run.Refused) > 0 {
		text += fmt.Sprintf("; %d changed since the plan and were left out", len(run.Refused))
	}
	if res.Stopped != "" {
		text += ". Stopped sending: " + res.Stopped + "; the rest stays queued"
	}
	if err != nil {
		text += ". " + sentence(err)
	}
	b.status.SetText(text)
	b.bar.SetValue(float64(res.Progress.Settled() + res.Progress.Unknown))
	if n := res.Progress.Queued; n > 0 {
		b.undo.SetText(fmt.Sprintf("Cancel the %d not yet sent", n))
		b.undo.Show()
	}
	b.failuresOnly.Show()
	b.results.Show()
	b.refreshResults()
}

func (b *bulkScreen) refreshResults() {
	b.mu.Lock()
	items := b.result.Items
	b.mu.Unlock()
	b.shown = b.shown[:0]
	for _, r := range items {
		if !b.failuresOnly.Checked || r.Action.State != policy.ActionDone {
			b.shown = append(b.shown, r)
		}
	}
	b.results.Refresh()
}

// onUndo cancels, as a group, what the run has not sent yet.
func (b *bulkScreen) onUndo() {
	b.undo.Disable()
	b.mu.Lock()
	id := b.run.ID
	b.mu.Unlock()
	go func() {
		cancelled, err := b.wf.CancelRun(context.Background(), id)
		b.showNow(func() {
			if err != nil {
				b.status.SetText("Not cancelled: " + sentence(err))
				b.undo.Enable()
				return
			}
			b.mu.Lock()
			gone := map[int64]store.Action{}
			for _, a := range cancelled {
				gone[a.ID] = a
			}
			for i, r := range b.result.Items {
				if a, ok := gone[r.Action.ID]; ok {
					b.result.Items[i].Action = a
				}
			}
			b.mu.Unlock()
			b.status.SetText(fmt.Sprintf("Cancelled %d not yet sent; nothing of them reached the API.", len(cancelled)))
			b.undo.Hide()
			b.refreshResults()
		})
		select {
		case b.undone <- struct{}{}:
		default:
		}
	}()
}

// onBulk plans a bulk action on every item in view and shows the plan.
func (c *Console) onBulk(kind policy.ActionKind) {
	bw := c.wf
	if c.win.Canvas().Overlays().Top() != nil {
		return
	}
	sel := review.Selection{Filter: c.items.filter()}
	if ids := c.multi.list(); len(ids) > 0 {
		sel = review.Selection{IDs: ids}
	}
	c.background(func(ctx context.Context) func() {
		var p review.Plan
		var err error
		if kind == policy.ActionResubmit {
			p, err = bw.PlanResubmit(ctx, sel)
		} else {
			p, err = bw.PlanRequestFiles(ctx, sel)
		}
		return func() {
			if err != nil {
				c.showError("No bulk plan", err)
				return
			}
			c.showBulk(bw, p)
		}
	})
}

// showBulk shows a plan in the bulk dialog. Closing the dialog (Close or
// Escape) stops the run from starting more sends.
func (c *Console) showBulk(bw bulkWorkflow, p review.Plan) *bulkScreen {
	b := newBulkScreen(bw, p)
	b.apply = c.apply
	unlink := context.AfterFunc(c.ctx, b.cancel) // closing the window stops it too
	d := dialog.NewCustom("Bulk action", "Close", b.content, c.win)
	d.SetOnClosed(func() {
		unlink()
		b.cancel()
		c.onEscape = nil
		c.background(func(context.Context) func() { return c.reload })
	})
	c.onEscape = d.Hide // Escape closes it as Close does, OnClosed included
	d.Resize(fyne.NewSize(640, 480))
	d.Show()
	return b
}
