package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Bulk actions in the window: one dialog shows the plan (what it
// costs, what it leaves out and why), then the run's progress, then the
// result per item, with "Cancel the N not yet sent".

// bulkScreen is the content of the bulk dialog.
type bulkScreen struct {
	wf    Bulk
	items itemDetail // names an item's file, customer and verdict in the lists
	plan  review.Plan

	headline, skipped, status *textLabel
	messages                  map[policy.Code]*formEntry
	// A bulk clear's reason, one for the run, picked from the service's
	// list (the plan's, kept offline), and its comment (nil: not a clear).
	reason              *pickerEntry
	reasonList          *fyne.Container
	reasons             []policy.ReasonCode // those the plan's outcome may be given with
	matches             []int               // the reasons the picker's text matches
	pick                int                 // index in matches; -1: none
	reasonComment       *formEntry
	count               *formEntry // the plan's count typed, over the bulk limit (nil: not asked)
	confirm, undo, stop *formButton
	showItems, close    *formButton
	requeue             *formButton // "Queue again the N turned away" (outbox.go)
	// queueAgain plans the kind again on these items, a new intent with
	// new keys (set by showBulk; nil: not offered).
	queueAgain   func(ids []string)
	bar          *widget.ProgressBar
	failuresOnly *formCheck
	results      *widget.List
	content      *fyne.Container
	// form gives the dialog its keys (form.go): Enter confirms, Esc
	// closes, Ctrl+Enter in a message confirms.
	form *dialogForm
	// onEnded, when set, hears how a run ended (notify.go).
	onEnded func(review.RunProgress)

	// ctx is the run's: cancelled by Stop or when the dialog closes, so
	// that no further send starts (those under way end as the action
	// machine says).
	ctx    context.Context
	cancel context.CancelFunc
	// door hands a widget update from the run's goroutine to the UI
	// goroutine (thread.go: Console.onUI, when shown in the window).
	door func(wait bool, f func())
	// spawn runs the dialog's work off the UI goroutine: the plan's
	// lookups, the confirmation and its run, an undo. Shown in the
	// window it is Console.spawn, so that Console.Wait (signing out,
	// quitting) waits for it before the cache closes.
	spawn func(f func())

	mu        sync.Mutex
	run       review.Run
	result    review.RunResult
	shown     []review.ItemResult
	planned   bool                     // the list shows the plan's items (before the run)
	details   map[string]review.Detail // file, customer and verdict of the items listed
	planFiles map[string]string        // the plan's file names by item, until details are read
	ended     chan struct{}            // closed when the run has ended and is shown (tests)
	undone    chan struct{}            // gets a value when an undo has ended and is shown (tests)
	listed    chan struct{}            // gets a value when the plan's items are read and shown (tests)
}

// itemDetail is the one thing of Listing the bulk dialog asks.
type itemDetail interface {
	Item(ctx context.Context, id string) (review.Detail, error)
}

func newBulkScreen(wf Bulk, items itemDetail, p review.Plan) *bulkScreen {
	b := &bulkScreen{wf: wf, items: items, plan: p, ended: make(chan struct{}), undone: make(chan struct{}, 1), listed: make(chan struct{}, 1), details: map[string]review.Detail{}}
	b.planFiles = make(map[string]string, len(p.Items))
	for _, it := range p.Items {
		b.planFiles[it.ItemID] = it.FileName
	}
	b.form = newDialogForm(nil, nil)
	f := b.form
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.door = onUI
	b.spawn = func(f func()) { go f() }
	b.headline = newLabelWithStyle(p.Headline(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	b.skipped = newLabel(skippedText(p))
	b.skipped.Wrapping = fyne.TextWrapWord
	b.status = newLabel("Nothing is queued until you confirm.")
	b.status.Wrapping = fyne.TextWrapWord
	b.bar = widget.NewProgressBar()
	b.bar.Hide()
	b.confirm = f.defaultButton(confirmText(p), b.onConfirm)
	if len(p.Items) == 0 {
		b.confirm.Disable()
	}
	top := container.NewVBox(b.headline, b.skipped)
	if p.Kind == policy.ActionFileRequest {
		b.messages = map[policy.Code]*formEntry{}
		for _, c := range p.Codes() {
			e := f.multiLine(2)
			e.SetText(p.Messages[c])
			b.messages[c] = e
			top.Add(newLabel("Message to the customers for " + string(c) + " (once for all of them):"))
			top.Add(e)
			top.Add(f.hint())
		}
	}
	if p.Outcome != "" {
		b.addReason(top)
	}
	if p.NeedsCount() {
		// A plain click does not spend this many: the count is typed.
		b.confirm.Disable()
		b.count = f.entry()
		b.count.SetPlaceHolder(strconv.Itoa(p.Len()))
		b.count.OnChanged = func(text string) {
			if b.typedCount() == p.Len() {
				b.confirm.Enable()
			} else {
				b.confirm.Disable()
			}
		}
		l := newLabel(fmt.Sprintf("This acts on %d items, more than the bulk limit of %d. Type %d to confirm:", p.Len(), p.Max, p.Len()))
		l.Wrapping = fyne.TextWrapWord
		top.Add(l)
		top.Add(b.count)
	}
	b.undo = f.button("", b.onUndo)
	b.undo.Hide()
	b.stop = f.button("Stop sending", b.onStop)
	b.requeue = f.button("", b.onQueueAgain)
	b.requeue.Hide()
	b.stop.Hide()
	b.showItems = f.button(showItemsText(p.Len(), false), b.onShowItems)
	if len(p.Items) == 0 {
		b.showItems.Hide()
	}
	if b.reason != nil {
		f.focusFirst(b.reason) // the reason comes first: nothing is cleared without one
	}
	if f.first == nil && len(p.Items) > 0 {
		// No field: the harmless button has the focus, not the paid one
		// (Enter on it shows the items; Shift+Tab reaches Confirm).
		f.focusFirst(b.showItems)
	}
	b.failuresOnly = f.check("Show only what is not done", func(bool) { b.refreshResults() })
	b.failuresOnly.Hide()
	b.results = widget.NewList(func() int {
		if b.planned {
			return len(b.plan.Items)
		}
		return len(b.shown)
	},
		func() fyne.CanvasObject { return newLabel("") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.planned {
				o.(*textLabel).SetText(b.planLine(b.plan.Items[i]))
			} else {
				o.(*textLabel).SetText(b.resultLine(b.shown[i]))
			}
		})
	b.results.Hide()

	if !p.WaitUntil.IsZero() {
		top.Add(newLabel("The API asked us to wait until " + p.WaitUntil.Local().Format("15:04:05") +
			": the actions stay queued until then."))
	}
	top.Add(b.bar)
	top.Add(b.status)
	top.Add(container.NewHBox(b.confirm, b.stop, b.undo, b.requeue, b.showItems, b.failuresOnly))
	b.content = container.NewBorder(top, nil, nil, nil, b.results)
	return b
}

func showItemsText(n int, shown bool) string {
	if shown {
		return "Hide the items"
	}
	if n == 1 {
		return "Show the item"
	}
	return fmt.Sprintf("Show the %d items", n)
}

// onShowItems shows or hides the items the plan covers, by file and
// customer (read from the cache off the UI goroutine).
func (b *bulkScreen) onShowItems() {
	if b.planned {
		b.planned = false
		b.results.Hide()
		b.showItems.SetText(showItemsText(len(b.plan.Items), false))
		return
	}
	b.planned = true
	b.showItems.SetText(showItemsText(len(b.plan.Items), true))
	b.results.Show()
	b.results.Refresh()
	ids := make([]string, len(b.plan.Items))
	for i, it := range b.plan.Items {
		ids[i] = it.ItemID
	}
	b.spawn(func() {
		b.lookUp(ids)
		b.showNow(b.results.Refresh)
		select {
		case b.listed <- struct{}{}:
		default:
		}
	})
}

// lookUp reads the file, customer and verdict of items not read yet.
func (b *bulkScreen) lookUp(ids []string) {
	for _, id := range ids {
		b.mu.Lock()
		_, known := b.details[id]
		b.mu.Unlock()
		if known {
			continue
		}
		d, err := b.items.Item(context.Background(), id)
		if err != nil {
			continue
		}
		b.mu.Lock()
		b.details[id] = d
		b.mu.Unlock()
	}
}

// planLine is an item of the plan: file, customer and code (b.mu held).
func (b *bulkScreen) planLine(it review.PlanItem) string {
	file, who := it.FileName, ""
	if d, ok := b.details[it.ItemID]; ok {
		file, who = d.FileName, d.CustomerRef
	}
	parts := []string{shown(nameOr(file, it.ItemID))}
	if who != "" {
		parts = append(parts, shown(who))
	}
	if it.Code != "" {
		parts = append(parts, shown(string(it.Code)))
	}
	return strings.Join(parts, " · ")
}

func nameOr(name, id string) string {
	if name == "" {
		return id
	}
	return name
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
	if p.Outcome != "" {
		// The comment is multi-line; Enter in the reason picker confirms too.
		return fmt.Sprintf("%s %s (Ctrl+Enter)", outcomeVerb(p.Outcome), plural(len(p.Items), "item"))
	}
	if p.Kind == policy.ActionResubmit {
		return fmt.Sprintf("Re-submit %d, %d paid (Enter)", len(p.Items), p.PaidAnalyses())
	}
	// The messages are multi-line: Enter makes a new line there.
	return fmt.Sprintf("Request %s (Ctrl+Enter)", plural(len(p.Items), "new file"))
}

func skippedText(p review.Plan) string {
	lines := p.SkipLines()
	if len(lines) == 0 {
		return "Nothing is left out."
	}
	return "Left out: " + strings.Join(lines, "; ") + "."
}

// resultLine is an item of the run's result: its file, its customer and
// what became of it; a done item with its new score or code (b.mu held).
func (b *bulkScreen) resultLine(r review.ItemResult) string {
	a := r.Action
	parts := []string{shown(nameOr(b.planFiles[a.ItemID], a.ItemID))}
	d, known := b.details[a.ItemID]
	if known {
		parts = []string{shown(nameOr(d.FileName, a.ItemID))}
		if d.CustomerRef != "" {
			parts = append(parts, shown(d.CustomerRef))
		}
	}
	var what string
	switch a.State {
	case policy.ActionDone:
		what = "done"
		switch {
		case !known || a.Kind == policy.ActionFileRequest:
		case a.Kind == policy.ActionDecision:
			what = "cleared"
			if dec := d.CurrentDecision(); dec != nil && dec.State == policy.DecisionAwaiting {
				what += " · awaiting a second reviewer"
			}
		case d.Checked():
			what += fmt.Sprintf(": new score %d", *d.RiskScore)
		case d.ErrorCode != "":
			what += ": now " + shown(string(d.ErrorCode))
		}
	case policy.ActionQueued:
		what = "not sent yet: queued for the next flush"
	case policy.ActionUnknown:
		what = "outcome unknown: the next flush reconciles it"
	case policy.ActionFailed:
		if policy.MayQueueAgain(a.State, a.LastErrorCode) {
			what = "turned away for now (" + shown(string(a.LastErrorCode)) + "): Queue again sends it anew"
		} else {
			what = policy.StateWord(a.State) + " by the API: " + shown(string(a.LastErrorCode))
		}
	case policy.ActionCancelled:
		what = "cancelled, nothing sent"
	default:
		what = policy.StateWord(a.State)
	}
	return strings.Join(append(parts, what), " · ")
}

// progressText counts the run's actions in the words the strip uses for
// the outbox (policy.StateWord).
func progressText(p review.RunProgress) string {
	text := fmt.Sprintf("%d of %d: %d %s, %d %s, %d %s, %d %s", p.Settled()+p.Unknown, p.Total,
		p.Done, policy.StateWord(policy.ActionDone), p.Failed, policy.StateWord(policy.ActionFailed),
		p.Unknown, policy.StateWord(policy.ActionUnknown), p.Queued, policy.StateWord(policy.ActionQueued))
	// The counts add up to the total: those on their way and those
	// cancelled are said too, when there are any.
	for _, n := range []struct {
		n  int
		st policy.ActionState
	}{{p.Sending, policy.ActionSending}, {p.Cancelled, policy.ActionCancelled}} {
		if n.n > 0 {
			text += fmt.Sprintf(", %d %s", n.n, policy.StateWord(n.st))
		}
	}
	return text
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
	if b.reason != nil {
		// One reason for the run, judged as a single decision's is
		// (policy.CheckReason, in Plan.SetDecision) before anything is queued.
		code := b.pickedReason()
		if code == "" {
			b.status.SetText("Pick a reason: type part of one, or ↑ / ↓. Nothing is queued.")
			b.confirm.Enable()
			return
		}
		if err := b.plan.SetDecision(code, b.reasonComment.Text); err != nil {
			b.status.SetText(sentence(err) + " Nothing is queued.")
			b.confirm.Enable()
			return
		}
		b.reason.Disable()
		b.reasonComment.Disable()
	}
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
	b.spawn(func() {
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
				b.done()
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
		// The result shows at once; each item's customer and new verdict
		// follow as they are read from the cache.
		b.forget(res.Items) // their verdicts changed: read again
		b.showNow(func() { b.stop.Hide(); b.showResult(run, res, err) })
		ids := make([]string, len(res.Items))
		for i, r := range res.Items {
			ids[i] = r.Action.ItemID
		}
		b.lookUp(ids)
		b.showNow(b.results.Refresh)
		close(b.ended)
	})
}

// showNow runs a widget update from the run's goroutine on the UI
// goroutine, one at a time with the window's own, and waits for it.
func (b *bulkScreen) showNow(f func()) { b.door(true, f) }

// showLater is showNow without the wait.
func (b *bulkScreen) showLater(f func()) { b.door(false, f) }

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
		text += ". Stopped sending: " + shownLong(res.Stopped) + "; the rest stays queued"
	}
	if err != nil {
		text += ". " + sentence(err)
	}
	b.status.SetText(text)
	if b.onEnded != nil {
		b.onEnded(res.Progress)
	}
	b.bar.SetValue(float64(res.Progress.Settled() + res.Progress.Unknown))
	if n := res.Progress.Queued; n > 0 {
		b.undo.SetText(fmt.Sprintf("Cancel the %d not yet sent", n))
		b.undo.Show()
	}
	b.planned = false
	b.showItems.Hide()
	b.showQueueAgain() // outbox.go
	b.failuresOnly.Show()
	b.results.Show()
	b.refreshResults()
	b.done()
}

// done: the run is over; Enter and Esc close the dialog.
func (b *bulkScreen) done() {
	if b.close != nil {
		b.form.def = b.close
	}
}

// forget drops what was read of the items of a result.
func (b *bulkScreen) forget(items []review.ItemResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range items {
		delete(b.details, r.Action.ItemID)
	}
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
	b.spawn(func() {
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
	})
}

// onBulk plans a bulk action on the selected items, or every item in
// view, and shows the plan.
func (c *Console) onBulk(kind policy.ActionKind) {
	if c.win.Canvas().Overlays().Top() != nil {
		return
	}
	sel := review.Selection{Filter: c.items.filter()}
	if ids := c.multi.list(); len(ids) > 0 {
		sel = review.Selection{IDs: ids}
	}
	c.planBulk(kind, sel)
}

// planBulk plans a bulk action on a selection off the UI goroutine, and
// shows the plan (or why there is none).
func (c *Console) planBulk(kind policy.ActionKind, sel review.Selection) {
	bw, items := c.wf.Bulk, c.wf.Listing
	c.background(func(ctx context.Context) func() {
		var p review.Plan
		var err error
		switch kind {
		case policy.ActionResubmit:
			p, err = bw.PlanResubmit(ctx, sel)
		case policy.ActionDecision:
			p, err = bw.PlanClear(ctx, sel)
		default:
			p, err = bw.PlanRequestFiles(ctx, sel)
		}
		return func() {
			if err != nil {
				c.showError("No bulk plan", err)
				return
			}
			c.showBulk(bw, items, p)
		}
	})
}

// showBulk shows a plan in the bulk dialog. Closing the dialog (Close or
// Escape) stops the run from starting more sends.
func (c *Console) showBulk(bw Bulk, items itemDetail, p review.Plan) *bulkScreen {
	b := newBulkScreen(bw, items, p)
	b.door = c.onUI
	b.spawn = c.spawn
	// A notification when the run leaves actions unknown or refused (the
	// dialog says it too).
	b.onEnded = func(p review.RunProgress) { c.notes.post(runEndLine(p)) }
	unlink := context.AfterFunc(c.ctx, b.cancel) // closing the window stops it too
	f := b.form
	f.win, f.c = c.win, c
	b.close = f.cancelButton("Close (Esc)")
	f.onClosed = func() {
		unlink()
		b.cancel()
		c.background(func(context.Context) func() { return c.reload })
	}
	b.queueAgain = func(ids []string) { // outbox.go: a new plan, on those items
		f.hide()
		c.onBulkIDs(p.Kind, ids)
	}
	f.show("Bulk action", b.content, []fyne.CanvasObject{b.close}, 640)
	for _, e := range b.messages {
		e.cursorToEnd() // a new line goes after the suggested message
	}
	f.dlg.Resize(fyne.NewSize(fyne.Max(640, f.dlg.MinSize().Width), fyne.Max(480, f.dlg.MinSize().Height)))
	return b
}

// addReason adds a bulk clear's reason picker and comment to the plan:
// typing finds a reason of the service's list for the outcome, ↑ and ↓
// choose, Enter confirms; the comment is optional for a clear.
func (b *bulkScreen) addReason(top *fyne.Container) {
	f := b.form
	b.reasons, b.pick = b.plan.ReasonsFor(), -1
	b.reasonList = container.NewVBox()
	b.reason = newPickerEntry(f, b.moveReason)
	b.reason.SetPlaceHolder("type to find a reason; ↑ / ↓ choose")
	b.reason.OnChanged = func(string) { b.filterReasons() }
	b.reasonComment = f.multiLine(2)
	b.reasonComment.SetPlaceHolder("optional: the same comment goes with every clear")
	top.Add(newLabel("Reason, one for every clear of the run (the service's reasons for " + string(b.plan.Outcome) + "):"))
	top.Add(b.reason)
	top.Add(b.reasonList)
	top.Add(newLabel("Comment (optional):"))
	top.Add(b.reasonComment)
	top.Add(f.hint())
	b.filterReasons()
}

// filterReasons keeps the reasons whose code or label holds the picker's
// text, and picks the first of them.
func (b *bulkScreen) filterReasons() {
	q := strings.ToLower(strings.TrimSpace(b.reason.Text))
	b.matches = b.matches[:0]
	for i, r := range b.reasons {
		if q == "" || strings.Contains(strings.ToLower(r.Code), q) || strings.Contains(strings.ToLower(r.Label), q) {
			b.matches = append(b.matches, i)
		}
	}
	b.pick = -1
	if len(b.matches) > 0 {
		b.pick = 0
	}
	b.drawReasons()
}

func (b *bulkScreen) moveReason(delta int) {
	if len(b.matches) == 0 {
		return
	}
	b.pick = min(max(b.pick+delta, 0), len(b.matches)-1)
	b.drawReasons()
}

func (b *bulkScreen) drawReasons() {
	b.reasonList.RemoveAll()
	if len(b.reasons) == 0 {
		b.reasonList.Add(wrapped("The service's list gives no reason for " + string(b.plan.Outcome) + ": sync to read it again."))
	} else if len(b.matches) == 0 {
		b.reasonList.Add(wrapped("No reason matches: erase some of the text."))
	}
	for i, m := range b.matches {
		r := b.reasons[m]
		l := newLabel("   " + shown(r.Label) + " (" + shown(r.Code) + ")")
		if i == b.pick {
			l.SetText("▸ " + shown(r.Label) + " (" + shown(r.Code) + ")")
			l.TextStyle.Bold = true
			l.Importance = widget.HighImportance
		}
		b.reasonList.Add(l)
	}
	b.reasonList.Refresh()
}

// pickedReason is the code of the reason picked, or "".
func (b *bulkScreen) pickedReason() string {
	if b.pick < 0 || b.pick >= len(b.matches) {
		return ""
	}
	return b.reasons[b.matches[b.pick]].Code
}
