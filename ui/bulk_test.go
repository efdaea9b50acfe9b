package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// fakeBulk is a bulk workflow whose run sends the first `send` actions
// and leaves the rest queued, as when the API stops answering halfway.
type fakeBulk struct {
	mu        sync.Mutex
	stopAfter int // when set, Confirm queues only so many and fails
	send      int
	confirmed review.Plan
	cancelled int
}

func (f *fakeBulk) PlanResubmit(context.Context, review.Selection) (review.Plan, error) {
	return review.Plan{}, nil
}
func (f *fakeBulk) PlanRequestFiles(context.Context, review.Selection) (review.Plan, error) {
	return review.Plan{}, nil
}

func (f *fakeBulk) PlanClear(context.Context, review.Selection) (review.Plan, error) {
	return review.Plan{}, nil
}

func (f *fakeBulk) Confirm(_ context.Context, p review.Plan) (review.Run, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.confirmed = p
	run := review.Run{BulkRun: store.BulkRun{ID: 7, Kind: p.Kind, Confirmed: len(p.Items)}}
	for i, it := range p.Items {
		run.Actions = append(run.Actions, store.Action{ID: int64(i + 1), ItemID: it.ItemID, Kind: p.Kind, State: policy.ActionQueued,
			Message: p.Messages[it.Code]})
		if f.stopAfter > 0 && len(run.Actions) == f.stopAfter {
			p.Items = p.Items[:f.stopAfter]
			f.confirmed = p
			return run, policy.Errorf(policy.CodeCacheBusy, "the cache was busy; the confirmation stopped")
		}
	}
	return run, nil
}

func (f *fakeBulk) SendRun(_ context.Context, _ int64, opts review.RunOptions) (review.RunResult, error) {
	f.mu.Lock()
	p := f.confirmed
	f.mu.Unlock()
	res := review.RunResult{Progress: review.RunProgress{Total: len(p.Items), Queued: len(p.Items)}}
	for i, it := range p.Items {
		a := store.Action{ID: int64(i + 1), ItemID: it.ItemID, Kind: p.Kind, State: policy.ActionQueued}
		if i < f.send {
			a.State = policy.ActionDone
			res.Progress.Done++
			res.Progress.Queued--
			opts.Progress(res.Progress)
		}
		res.Items = append(res.Items, review.ItemResult{Action: a})
	}
	if f.send < len(p.Items) {
		res.Stopped = "the API stopped answering"
	}
	return res, nil
}

func (f *fakeBulk) CancelRun(context.Context, int64) ([]store.Action, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []store.Action
	for i, it := range f.confirmed.Items {
		if i >= f.send {
			out = append(out, store.Action{ID: int64(i + 1), ItemID: it.ItemID, State: policy.ActionCancelled})
		}
	}
	f.cancelled = len(out)
	return out, nil
}

// Item is an item of the plan as the cache holds it: its file is named
// after it, in the batch of customer CUST-7048; a done re-submission
// scored 42.
func (f *fakeBulk) Item(_ context.Context, id string) (review.Detail, error) {
	score := 42
	d := review.Detail{}
	d.ID, d.FileName, d.CustomerRef = id, id+".jpg", "CUST-7048"
	d.Status, d.RiskScore, d.Recommendation = policy.StatusScored, &score, policy.RecommendForward
	return d, nil
}

func planOf(kind policy.ActionKind, n int) review.Plan {
	p := review.Plan{Kind: kind, Skipped: []review.Skipped{
		{ItemID: "s1", Reason: policy.SkipNeedsFile}, {ItemID: "s2", Reason: policy.SkipNeedsFile}, {ItemID: "s3", Reason: policy.SkipNeedsFile},
		{ItemID: "s4", Reason: policy.SkipClaimed, Detail: "Ben"},
		{ItemID: "s5", Reason: policy.SkipActionOpen}, {ItemID: "s6", Reason: policy.SkipActionOpen},
	}}
	if kind == policy.ActionFileRequest {
		p.Messages = map[policy.Code]string{policy.CodeDecodeFailed: policy.Info(policy.CodeDecodeFailed).CustomerMessage}
	}
	for i := range n {
		code := policy.CodeClassifierTimeout
		if kind == policy.ActionFileRequest {
			code = policy.CodeDecodeFailed
		}
		p.Items = append(p.Items, review.PlanItem{ItemID: fmt.Sprintf("itm_%02d", i), Code: code})
	}
	return p
}

func waitEnded(t *testing.T, b *bulkScreen) {
	t.Helper()
	select {
	case <-b.ended:
	case <-time.After(time.Minute):
		t.Fatal("the run did not end")
	}
}

func TestBulkDialogShowsThePlanThenProgressThenUndo(t *testing.T) {
	test.NewTempApp(t)
	wf := &fakeBulk{send: 5}
	b := newBulkScreen(wf, wf, planOf(policy.ActionResubmit, 12))
	w := test.NewTempWindow(t, b.content)
	w.Resize(w.Content().MinSize().Max(w.Canvas().Size()))
	if b.headline.Text != "Re-submit 12 items: 12 paid analyses" {
		t.Fatalf("headline %q", b.headline.Text)
	}
	if b.skipped.Text != "Left out: 3 need a new file; 2 already have an action waiting; 1 is claimed by Ben." {
		t.Fatalf("skipped %q", b.skipped.Text)
	}
	if b.confirm.Text != "Re-submit 12, 12 paid (Enter)" || b.undo.Visible() || b.results.Visible() {
		t.Fatal("before confirming: the confirm button names the cost and nothing else shows")
	}
	test.Tap(b.confirm)
	waitEnded(t, b)
	if !b.confirm.Disabled() || b.bar.Value != 5 || b.bar.Max != 12 {
		t.Fatalf("after the run: confirm disabled %v, bar %v/%v", b.confirm.Disabled(), b.bar.Value, b.bar.Max)
	}
	if !strings.Contains(b.status.Text, "5 done") || !strings.Contains(b.status.Text, "7 queued") || !strings.Contains(b.status.Text, "the API stopped answering") {
		t.Fatalf("status %q", b.status.Text)
	}
	if !b.undo.Visible() || b.undo.Text != "Cancel the 7 not yet sent" || len(b.shown) != 12 {
		t.Fatalf("undo %q visible %v, %d results", b.undo.Text, b.undo.Visible(), len(b.shown))
	}
	test.Tap(b.failuresOnly)
	if len(b.shown) != 7 || !strings.Contains(b.resultLine(b.shown[0]), "not sent yet") {
		t.Fatalf("failures only: %d", len(b.shown))
	}
	test.Tap(b.undo)
	select {
	case <-b.undone:
	case <-time.After(time.Minute):
		t.Fatal("the undo did not end")
	}
	wf.mu.Lock()
	defer wf.mu.Unlock()
	if wf.cancelled != 7 || !strings.Contains(b.status.Text, "Cancelled 7") || !strings.Contains(b.resultLine(b.shown[0]), "cancelled, nothing sent") {
		t.Fatalf("after undo: %d cancelled, status %q", wf.cancelled, b.status.Text)
	}
}

func TestBulkFileRequestMessageIsEditedOnceForAll(t *testing.T) {
	test.NewTempApp(t)
	wf := &fakeBulk{send: 3}
	b := newBulkScreen(wf, wf, planOf(policy.ActionFileRequest, 3))
	test.NewTempWindow(t, b.content)
	if !strings.Contains(b.headline.Text, "no paid analysis") || b.confirm.Text != "Request 3 new files (Ctrl+Enter)" {
		t.Fatalf("%q %q", b.headline.Text, b.confirm.Text)
	}
	e := b.messages[policy.CodeDecodeFailed]
	if e == nil || e.Text != policy.Info(policy.CodeDecodeFailed).CustomerMessage {
		t.Fatal("the message is not prefilled for its code")
	}
	e.SetText("   ")
	test.Tap(b.confirm)
	if b.confirm.Disabled() || !strings.Contains(b.status.Text, "cannot be empty") {
		t.Fatalf("an empty message was taken: %q", b.status.Text)
	}
	e.SetText("Please send a sharper photo.")
	test.Tap(b.confirm)
	waitEnded(t, b)
	if wf.confirmed.Messages[policy.CodeDecodeFailed] != "Please send a sharper photo." || b.undo.Visible() {
		t.Fatalf("confirmed %q", wf.confirmed.Messages)
	}
}

func TestBandAndAgeColumnsSayItInWords(t *testing.T) {
	score := 91
	scored := review.ItemView{ItemRow: store.ItemRow{Item: policy.Item{Status: policy.StatusScored, RiskScore: &score,
		Recommendation: policy.RecommendReject}}, Aged: review.Aged{Band: policy.BandCritical, Age: "2 h"}}
	failed := review.ItemView{ItemRow: store.ItemRow{Item: policy.Item{Status: policy.StatusError, ErrorCode: policy.CodeInternal}},
		Aged: review.Aged{AgeLevel: policy.AgeOverdue, Age: "6 d · overdue", Snoozed: true}}
	if text, _ := bandCell(scored); text != "critical" {
		t.Fatalf("band %q", text)
	}
	if text, _ := bandCell(failed); text != "—" {
		t.Fatalf("an error with a band %q", text)
	}
	if text, _ := ageCell(failed); text != "6 d · overdue · snoozed" {
		t.Fatalf("age %q", text)
	}
	titles := []string{}
	for _, c := range allColumns {
		titles = append(titles, c.title)
	}
	got := strings.Join(titles, ",")
	if !strings.Contains(got, "Status,Age") || !strings.Contains(got, "Score,Band") {
		t.Fatalf("columns %s", got)
	}
}

// A plan over the bulk limit is confirmed by typing its count: the confirm
// button stays off until the typed number equals it.
func TestABulkPlanOverTheLimitIsConfirmedByTypingItsCount(t *testing.T) {
	test.NewTempApp(t)
	wf := &fakeBulk{send: 12}
	p := planOf(policy.ActionResubmit, 12)
	p.Max = 10
	b := newBulkScreen(wf, wf, p)
	w := test.NewTempWindow(t, b.content)
	w.Resize(w.Content().MinSize().Max(w.Canvas().Size()))
	if b.count == nil || !b.confirm.Disabled() {
		t.Fatal("a plan over the limit can be confirmed without its count")
	}
	for _, typed := range []string{"1", "11", "120", "twelve"} {
		b.count.SetText("")
		test.Type(b.count, typed)
		if !b.confirm.Disabled() {
			t.Fatalf("confirm is on with %q typed", typed)
		}
	}
	test.Tap(b.confirm)
	wf.mu.Lock()
	if wf.confirmed.Kind != "" {
		t.Fatal("a tap on the disabled button confirmed the plan")
	}
	wf.mu.Unlock()
	b.count.SetText("")
	test.Type(b.count, "12")
	if b.confirm.Disabled() {
		t.Fatal("confirm stays off with the count typed")
	}
	test.Tap(b.confirm)
	waitEnded(t, b)
	wf.mu.Lock()
	defer wf.mu.Unlock()
	if wf.confirmed.CountConfirmed != 12 || len(wf.confirmed.Items) != 12 {
		t.Fatalf("confirmed %d items with the count %d", len(wf.confirmed.Items), wf.confirmed.CountConfirmed)
	}

	// At or under the limit, a click confirms as before.
	under := planOf(policy.ActionResubmit, 10)
	under.Max = 10
	if b := newBulkScreen(wf, wf, under); b.count != nil || b.confirm.Disabled() {
		t.Fatal("a plan within the limit asks for its count")
	}
}

// A confirmation that stopped part-way queued some actions: the window
// says so, keeps Confirm off, and offers to cancel what it queued; it
// never says "nothing queued".
func TestABulkConfirmationStoppedPartWaySaysWhatItQueued(t *testing.T) {
	test.NewTempApp(t)
	wf := &fakeBulk{stopAfter: 4}
	b := newBulkScreen(wf, wf, planOf(policy.ActionResubmit, 12))
	test.NewTempWindow(t, b.content)
	test.Tap(b.confirm)
	waitEnded(t, b)
	if !b.confirm.Disabled() || strings.Contains(b.status.Text, "Nothing queued") || !strings.Contains(b.status.Text, "Stopped after queuing 4 of 12") {
		t.Fatalf("confirm disabled %v, status %q", b.confirm.Disabled(), b.status.Text)
	}
	if !b.undo.Visible() || b.undo.Text != "Cancel the 4 not yet sent" {
		t.Fatalf("undo %q visible %v", b.undo.Text, b.undo.Visible())
	}
	test.Tap(b.undo)
	select {
	case <-b.undone:
	case <-time.After(time.Minute):
		t.Fatal("the undo did not end")
	}
	wf.mu.Lock()
	defer wf.mu.Unlock()
	if wf.cancelled != 4 {
		t.Fatalf("cancelled %d, want 4", wf.cancelled)
	}
}

// stoppableBulk is a bulk workflow whose run waits, as a slow API would,
// until its context ends, and hands that context to the test.
type stoppableBulk struct {
	*fakeBulk
	sending chan context.Context
}

func (f *stoppableBulk) SendRun(ctx context.Context, _ int64, _ review.RunOptions) (review.RunResult, error) {
	f.sending <- ctx
	<-ctx.Done()
	return review.RunResult{Stopped: "stopped by the reviewer"}, nil
}

// A bulk run from the window stops starting sends when the reviewer
// presses Stop, or closes the dialog (Close or Escape): the context its
// sends run on is cancelled.
func TestABulkRunStopsWithItsDialog(t *testing.T) {
	for _, how := range []string{"stop", "close", "escape"} {
		t.Run(how, func(t *testing.T) {
			f := &stoppableBulk{fakeBulk: &fakeBulk{}, sending: make(chan context.Context, 1)}
			c := newTestConsole(t, &fakeWorkflow{})
			var b *bulkScreen
			c.apply(func() {
				b = c.showBulk(f, f, planOf(policy.ActionResubmit, 3))
				test.Tap(b.confirm)
			})
			var ctx context.Context
			select {
			case ctx = <-f.sending:
			case <-time.After(time.Minute):
				t.Fatal("the run did not start")
			}
			if ctx.Err() != nil {
				t.Fatal("the run's context ended before anyone stopped it")
			}
			c.apply(func() {
				switch how {
				case "stop":
					if !b.stop.Visible() {
						t.Error("no Stop button while the run sends")
					}
					test.Tap(b.stop)
				case "close":
					closeBtn := findButton(c.win.Canvas().Overlays().Top(), "Close (Esc)")
					if closeBtn == nil {
						t.Fatal("the bulk dialog has no Close button")
					}
					test.Tap(closeBtn)
				case "escape":
					c.onKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
				}
			})
			select {
			case <-ctx.Done():
			case <-time.After(time.Minute):
				t.Fatalf("%s: the run's context is still live, it would go on sending", how)
			}
			waitEnded(t, b)
			c.Settle()
		})
	}
}

// findButton finds a button by its text among an object and its children.
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	var kids []fyne.CanvasObject
	switch v := o.(type) {
	case *widget.Button:
		if v.Text == text {
			return v
		}
		return nil
	case *formButton:
		if v.Text == text {
			return &v.Button
		}
		return nil
	case *fyne.Container:
		kids = v.Objects
	case fyne.Widget:
		kids = test.WidgetRenderer(v).Objects()
	}
	for _, k := range kids {
		if b := findButton(k, text); b != nil {
			return b
		}
	}
	return nil
}

// Enter in the bulk plan presses the button labelled "(Enter)", even with
// the focus on "Show the items"; Space presses the focused one.
func TestEnterInTheBulkPlanPressesTheButtonThatSaysEnter(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{})
	fb := &fakeBulk{send: 3}
	var b *bulkScreen
	c.apply(func() { b = c.showBulk(fb, fb, planOf(policy.ActionResubmit, 3)) })
	if focused(c) != b.showItems || b.confirm.Importance != widget.HighImportance || b.showItems.Importance == widget.HighImportance {
		t.Fatalf("focus on %T; the default button is not the one that looks it", focused(c))
	}
	pressKey(c, fyne.KeySpace) // Space: the focused button
	if !b.results.Visible() || b.confirm.Disabled() {
		t.Fatalf("Space did not show the items (shown %v) or confirmed", b.results.Visible())
	}
	pressKey(c, fyne.KeyReturn)
	if !b.confirm.Disabled() {
		t.Fatal("Enter pressed the focused button, not the one labelled (Enter)")
	}
	waitEnded(t, b)
	fb.mu.Lock()
	defer fb.mu.Unlock()
	if len(fb.confirmed.Items) != 3 {
		t.Fatalf("confirmed %d items", len(fb.confirmed.Items))
	}
}

// lingeringBulk is a bulk workflow whose run, once its context ends,
// takes a while to return, as a send under way finishes its call: it
// says when it has returned.
type lingeringBulk struct {
	*stoppableBulk
	returned atomic.Bool
}

func (f *lingeringBulk) SendRun(ctx context.Context, id int64, opts review.RunOptions) (review.RunResult, error) {
	res, err := f.stoppableBulk.SendRun(ctx, id, opts)
	// The send under way ends after the window let go of it: long
	// enough that a Wait that does not wait for it returns first.
	<-time.After(200 * time.Millisecond)
	f.returned.Store(true)
	return res, err
}

// Signing out or quitting waits for a bulk run of the window to end
// before the cache is closed: Console.Wait counts the bulk dialog's work
// (it did not: the run went on using the workflow after Wait returned).
func TestConsoleWaitWaitsForTheBulkRun(t *testing.T) {
	f := &lingeringBulk{stoppableBulk: &stoppableBulk{fakeBulk: &fakeBulk{}, sending: make(chan context.Context, 1)}}
	c := newTestConsole(t, &fakeWorkflow{})
	c.apply(func() {
		b := c.showBulk(f, f, planOf(policy.ActionResubmit, 3))
		test.Tap(b.confirm)
	})
	select {
	case <-f.sending:
	case <-time.After(time.Minute):
		t.Fatal("the run did not start")
	}
	c.Close()
	c.Wait()
	if !f.returned.Load() {
		t.Fatal("Console.Wait returned while the bulk run still used the workflow")
	}
}
