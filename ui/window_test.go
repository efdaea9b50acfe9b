package ui

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

func inBatch(v review.ItemView, batch, ref string) review.ItemView {
	v.BatchID, v.CustomerRef = batch, ref
	return v
}

func twoBatches() *fakeWorkflow {
	now := time.Now()
	return &fakeWorkflow{
		batches: []store.BatchSummary{
			{ID: "bat_48", CustomerRef: "CUST-7048", CreatedAt: now, Items: 1},
			{ID: "bat_43", CustomerRef: "CUST-7043", CreatedAt: now.Add(-time.Hour), Items: 1},
		},
		items: []review.ItemView{
			inBatch(errorItem("a48", "DECODE_FAILED"), "bat_48", "CUST-7048"),
			inBatch(errorItem("a43", "INTERNAL_ERROR"), "bat_43", "CUST-7043"),
		},
	}
}

func key(c *Console) func(*fyne.KeyEvent) {
	return c.win.Canvas().(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()
}

// A batch found by search opens with one click (it sits on the
// row the previous batch had) or with Enter in the search box; a click on
// the highlighted batch leaves the all-batches view.
func TestAClickOrEnterOnAnyBatchOpensIt(t *testing.T) {
	wf := twoBatches()
	c := newTestConsole(t, wf)
	if c.batches.batchID() != "bat_48" || c.panel.itemID != "a48" {
		t.Fatalf("start: batch %q item %q", c.batches.batchID(), c.panel.itemID)
	}
	c.apply(func() { c.batches.search.SetText("7043") })
	c.Settle()
	if len(c.batches.rows) != 1 || c.batches.rows[0].ID != "bat_43" {
		t.Fatalf("search rows %+v", c.batches.rows)
	}
	c.apply(func() { c.batches.list.Select(0) }) // the click on row 0
	c.Settle()
	if c.batches.batchID() != "bat_43" || c.panel.itemID != "a43" || len(c.items.rows) != 1 {
		t.Fatalf("after the click: batch %q item %q", c.batches.batchID(), c.panel.itemID)
	}
	// Enter in the search box opens the first match.
	c.apply(func() { c.batches.search.SetText("7048") })
	c.Settle()
	c.apply(func() { c.batches.search.OnSubmitted(c.batches.search.Text) })
	c.Settle()
	if c.batches.batchID() != "bat_48" || c.panel.itemID != "a48" {
		t.Fatalf("after Enter: batch %q item %q", c.batches.batchID(), c.panel.itemID)
	}
	// All batches, then a click on the batch that was highlighted.
	c.apply(func() { c.batches.search.SetText("") })
	c.Settle()
	c.apply(func() { c.batches.all.SetChecked(true) })
	c.Settle()
	if c.batches.batchID() != "" || len(c.items.rows) != 2 {
		t.Fatalf("all batches: %q, %d rows", c.batches.batchID(), len(c.items.rows))
	}
	c.apply(func() { c.batches.list.Select(c.batches.index("bat_48")) })
	c.Settle()
	if c.batches.all.Checked || c.batches.batchID() != "bat_48" || len(c.items.rows) != 1 {
		t.Fatalf("the click did not leave all batches: %q, %d rows", c.batches.batchID(), len(c.items.rows))
	}
	// Keys on the focused list open the batch below.
	c.apply(func() {
		c.win.Canvas().Focus(c.batches.list)
		c.batches.list.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	})
	c.Settle()
	if c.batches.batchID() != "bat_43" {
		t.Fatalf("Down on the list: %q", c.batches.batchID())
	}
}

// After a click on the table (which focuses it), Up and Down
// move the selected item and the panel follows.
func TestArrowsAfterAClickMoveTheSelection(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED"), errorItem("b", "INTERNAL_ERROR"), errorItem("c", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsole(t, wf)
	cv := c.win.Canvas()
	c.apply(func() { test.TapAt(c.items.table, fyne.NewPos(40, c.items.table.MinSize().Height-10)) })
	c.Settle()
	if cv.Focused() != c.items.table {
		t.Fatal("the table did not take the focus")
	}
	c.apply(func() { c.items.table.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown}) })
	c.Settle()
	if c.items.row != 1 || c.panel.itemID != "b" {
		t.Fatalf("Down: row %d panel %q", c.items.row, c.panel.itemID)
	}
	c.apply(func() { c.items.table.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd}) })
	c.Settle()
	c.apply(func() { c.items.table.TypedKey(&fyne.KeyEvent{Name: fyne.KeyUp}) })
	c.Settle()
	if c.items.row != 1 || c.panel.itemID != "b" || !c.panel.loaded {
		t.Fatalf("End, Up: row %d panel %q", c.items.row, c.panel.itemID)
	}
	// The triage keys work while the table has the focus.
	c.apply(func() { c.items.table.TypedRune('?') })
	if cv.Overlays().Top() == nil {
		t.Fatal("? with the table focused did not show the shortcut sheet")
	}
}

// Ctrl+F focuses the batch search.
func TestCtrlFFocusesTheBatchSearch(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}})
	cv := c.win.Canvas()
	c.apply(func() { cv.Focus(c.items.table) })
	sc := cv.(interface{ TypedShortcut(fyne.Shortcut) })
	c.apply(func() {
		sc.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault})
	})
	if cv.Focused() != c.batches.search {
		t.Fatalf("Ctrl+F focused %T", cv.Focused())
	}
}

// A paid re-run asks first and Escape leaves it undone; ? shows
// every shortcut; each action button's tooltip names its key.
func TestResubmitAsksFirstAndEveryKeyIsDocumented(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsole(t, wf)
	cv := c.win.Canvas()
	c.apply(func() { test.TypeOnCanvas(cv, "r") })
	if cv.Overlays().Top() == nil {
		t.Fatal("r did not ask")
	}
	c.apply(func() { key(c)(&fyne.KeyEvent{Name: fyne.KeyEscape}) })
	c.Settle()
	if len(wf.Calls()) != 0 || cv.Overlays().Top() != nil {
		t.Fatalf("Escape: calls %v", wf.Calls())
	}
	c.apply(func() { test.TypeOnCanvas(cv, "?") })
	top := cv.Overlays().Top()
	if top == nil {
		t.Fatal("? showed nothing")
	}
	var sheet []string
	for _, o := range test.LaidOutObjects(top) {
		if l, ok := asLabel(o); ok {
			sheet = append(sheet, l.Text)
		}
	}
	text := strings.Join(sheet, "\n")
	for _, k := range []string{"r", "f", "u", "x", "Esc", "Ctrl+F", "F5", "?"} {
		found := false
		for _, l := range sheet {
			if strings.HasPrefix(l, k) || strings.Contains(l, " "+k) || strings.Contains(l, k+" ") {
				found = true
			}
		}
		if !found {
			t.Fatalf("the sheet does not list %q:\n%s", k, text)
		}
	}
	for _, b := range []*tipButton{c.panel.resubmit, c.panel.request, c.panel.upload, c.panel.cancel, c.panel.stop, c.strip.syncBtn} {
		if !strings.Contains(b.Tip, "key") {
			t.Fatalf("%q's tooltip names no key: %q", b.Text, b.Tip)
		}
	}
}

// The panel is drawn from the item's state now: a queued
// action sent by a flush, an unknown outcome reconciled, leave no stale
// words behind.
func TestThePanelIsDrawnFromTheCurrentState(t *testing.T) {
	v := errorItem("a", "DECODE_FAILED")
	wf := &fakeWorkflow{items: []review.ItemView{v}}
	c := newTestConsole(t, wf)
	wf.setAction("a", policy.ActionFileRequest, policy.ActionQueued, policy.CodeAPIUnreachable)
	c.apply(c.reload)
	c.Settle()
	if !strings.Contains(c.panel.message.Text, "queued") || !c.panel.cancel.Visible() {
		t.Fatalf("queued: %q", c.panel.message.Text)
	}
	if _, err := wf.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	wf.mu.Lock()
	wf.items[0].Status, wf.items[0].ErrorCode = policy.StatusAwaitingFile, ""
	wf.mu.Unlock()
	c.apply(c.reload)
	c.Settle()
	if m := c.panel.message.Text; strings.Contains(m, "queued") || strings.Contains(m, "Not sent") || !strings.Contains(m, "done") {
		t.Fatalf("after the flush the panel says %q", m)
	}
	if c.panel.cancel.Visible() || c.cell(0, c.col(t, "Action")).Text != "done" {
		t.Fatal("the panel or the row still shows the queued action")
	}
	// An unknown outcome, then reconciled into a score.
	wf.setAction("a", policy.ActionResubmit, policy.ActionUnknown, policy.CodeOutcomeUnknown)
	c.apply(c.reload)
	c.Settle()
	if !strings.Contains(c.panel.message.Text, "no answer came back") {
		t.Fatalf("unknown: %q", c.panel.message.Text)
	}
	wf.mu.Lock()
	score := 62
	wf.items[0].Status, wf.items[0].RiskScore, wf.items[0].Recommendation = policy.StatusScored, &score, policy.RecommendReview
	wf.items[0].Action.State = policy.ActionDone
	wf.mu.Unlock()
	c.apply(c.reload)
	c.Settle()
	if m := c.panel.message.Text; strings.Contains(m, "unknown") || strings.Contains(m, "no answer") {
		t.Fatalf("after reconciling the panel says %q", m)
	}
	if !strings.Contains(c.panel.verdict.Text, "62") || c.cell(0, c.col(t, "Score")).Text != "62" {
		t.Fatalf("panel %q and row disagree", c.panel.verdict.Text)
	}
}

// Every status × code (known, unknown, none) × action state
// renders whole sentences: no empty slot, no " .", no known code called
// unknown.
func TestThePanelSpeaksInWholeSentencesForEveryState(t *testing.T) {
	codes := []string{"", "QUANTUM_FLUX_CAPACITOR"}
	for _, c := range policy.ItemCodes() {
		codes = append(codes, string(c))
	}
	states := []policy.ActionState{"", policy.ActionQueued, policy.ActionSending, policy.ActionUnknown, policy.ActionDone, policy.ActionFailed, policy.ActionCancelled}
	statuses := []policy.Status{policy.StatusScored, policy.StatusError, policy.StatusInvalid, policy.StatusPending, policy.StatusAwaitingFile}
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	wf := &fakeWorkflow{}
	c := NewConsole(w, workflowOf(wf), Options{Prefs: fyne.CurrentApp().Preferences()})
	c.Settle()
	n := 0
	for _, status := range statuses {
		for _, reported := range codes {
			for _, state := range states {
				it := policy.Item{ID: "itm", BatchID: "bat_1", FileName: "passport-front.jpg", Kind: policy.KindIDDocument,
					Status: status, ReportedCode: reported, Attempt: 1}
				switch status {
				case policy.StatusScored:
					s := 40
					it.RiskScore, it.Recommendation = &s, policy.RecommendReview
				case policy.StatusError:
					it.ErrorCode = policy.NormalizeItemCode(reported)
					if reported == "" {
						it.ErrorCode = policy.CodeInternal
					}
				case policy.StatusInvalid:
					it = policy.MarkInvalid(it, "an error with a score")
				}
				v := review.ItemView{ItemRow: store.ItemRow{Item: it, CustomerRef: "CUST-1"}}
				if state != "" {
					v.Action = &store.ActionRef{ID: 1, Kind: policy.ActionResubmit, State: state, Code: policy.CodeAPIUnreachable}
				}
				v.Next = policy.NextAction(policy.Situation{Item: it, OpenAction: v.OpenAction(), Now: time.Now()})
				d := review.Detail{ItemView: v}
				if state != "" {
					d.Actions = []store.Action{{ID: 1, Kind: policy.ActionResubmit, State: state, LastErrorCode: policy.CodeAPIUnreachable,
						LastError: "API_UNREACHABLE: dial tcp 127.0.0.1:1: connect: connection refused", UpdatedAt: time.Now()}}
				}
				c.apply(func() {
					c.panel.itemID, c.panel.detail, c.panel.loaded = "itm", d, true
					c.panel.render()
				})
				name := string(status) + "/" + reported + "/" + string(state)
				for _, l := range []*textLabel{c.panel.title, c.panel.subtitle, c.panel.verdict, c.panel.explain, c.panel.reported, c.panel.nextActor, c.panel.why, c.panel.message} {
					txt := l.Text
					if !l.Visible() || txt == "" {
						continue
					}
					n++
					for _, bad := range []string{" .", "  ", "()", " ,", "as .", ": ."} {
						if strings.Contains(txt, bad) {
							t.Fatalf("%s: %q has an empty slot (%q)", name, txt, bad)
						}
					}
					if strings.Contains(txt, "does not know") {
						for _, known := range policy.ItemCodes() {
							if strings.Contains(txt, "reported "+string(known)+",") {
								t.Fatalf("%s: a known code is called unknown: %q", name, txt)
							}
						}
					}
					if l != c.panel.title && l != c.panel.subtitle && l != c.panel.verdict && !strings.HasSuffix(strings.TrimSpace(txt), ".") && !strings.HasSuffix(txt, ")") {
						t.Fatalf("%s: %q does not end its sentence", name, txt)
					}
				}
				if strings.Contains(c.panel.message.Text, "dial tcp") {
					t.Fatalf("%s: raw driver text in the headline: %q", name, c.panel.message.Text)
				}
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d texts checked", n)
	}
}

// openRequest is the open "Request a new file" dialog as the reviewer
// sees it: the focused message box, its Send button and the line that
// says why Send is off.
func openRequest(t *testing.T, c *Console) *requestDialog {
	t.Helper()
	top := c.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("the request dialog did not open")
	}
	msg, ok := c.win.Canvas().Focused().(*formEntry)
	if !ok {
		t.Fatal("the message box does not have the focus")
	}
	rd := &requestDialog{msg: msg, send: findFormButton(top, "Send (Ctrl+Enter)")}
	walkObjects(top, func(o fyne.CanvasObject) {
		if l, ok := o.(*textLabel); ok && l.Importance == widget.DangerImportance {
			rd.why = l
		}
	})
	if rd.send == nil || rd.why == nil {
		t.Fatal("the request dialog has no Send button or no line for why")
	}
	return rd
}

// An empty message cannot be sent; what is sent is what was on
// screen.
func TestAnEmptyCustomerMessageIsRefusedInTheDialog(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}
	c := newTestConsole(t, wf)
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "f") })
	rd := openRequest(t, c)
	if rd.send.Disabled() {
		t.Fatal("the dialog did not open with the suggested message")
	}
	c.apply(func() { rd.msg.SetText("   ") })
	if !rd.send.Disabled() || !rd.why.Visible() || rd.why.Text == "" {
		t.Fatalf("an empty message: Send disabled %v, why %q", rd.send.Disabled(), rd.why.Text)
	}
	c.apply(func() { test.Tap(rd.send) })
	c.Settle()
	if len(wf.Calls()) != 0 {
		t.Fatalf("an empty message was sent: %v", wf.Calls())
	}
	// Control and bidi characters, or more than 4,000 characters, never
	// reach the customer: Send is off, and the dialog says why.
	for text, says := range map[string]string{
		"Please send\x1b]0;x\a a photo.": "escape character", "Please send gpj.\u202eexe": "right-to-left override",
		strings.Repeat("Please. ", 600): "at most 4000 characters",
	} {
		c.apply(func() { rd.msg.SetText(text) })
		if !rd.send.Disabled() || !rd.why.Visible() || !strings.Contains(rd.why.Text, says) {
			t.Fatalf("%.30q: Send disabled %v, why %q", text, rd.send.Disabled(), rd.why.Text)
		}
		c.apply(func() { test.Tap(rd.send) })
		c.Settle()
		if len(wf.Calls()) != 0 {
			t.Fatalf("%.30q was sent: %v", text, wf.Calls())
		}
	}
	c.apply(func() { rd.msg.SetText("Please send the back of the card.") })
	c.apply(func() { test.Tap(rd.send) })
	c.Settle()
	if got := wf.Calls(); len(got) != 1 || got[0] != "request a Please send the back of the card." {
		t.Fatalf("sent %v", got)
	}
	// Escape closes the dialog even with the focus in the message box.
	wf2 := &fakeWorkflow{items: []review.ItemView{errorItem("b", "DECODE_FAILED")}}
	c2 := newTestConsole(t, wf2)
	c2.apply(func() { test.TypeOnCanvas(c2.win.Canvas(), "f") })
	rd2 := openRequest(t, c2)
	c2.apply(func() { rd2.msg.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) })
	if c2.win.Canvas().Overlays().Top() != nil || len(wf2.Calls()) != 0 {
		t.Fatal("Escape in the message box did not close the dialog")
	}
}

// fakeClock is a clock a test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeClock) Add(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

// A hung call shows the time spent and the limit, leaves the
// other items usable, and "Stop waiting" leaves it unknown without a
// second send.
func TestAHungCallShowsItsTimeAndCanBeLeft(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "CLASSIFIER_TIMEOUT"), errorItem("b", "INTERNAL_ERROR")}}
	started := make(chan struct{})
	wf.resubmit = func(ctx context.Context, id string) (review.Result, error) {
		close(started)
		<-ctx.Done() // the service never answers
		a := wf.setAction(id, policy.ActionResubmit, policy.ActionUnknown, policy.CodeOutcomeUnknown)
		return review.Result{Action: a, Err: &client.Error{Code: policy.CodeOutcomeUnknown, Class: client.ClassUnknown,
			Message: "context canceled after the request was written"}}, nil
	}
	clk := &fakeClock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	c := newTestConsoleWith(t, wf, Options{Now: clk.Now, ActionLimit: 30 * time.Second})
	c.settings.store().SetString(prefAutoAdvance, "off")
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "r"); key(c)(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	<-started
	clk.Add(12 * time.Second)
	var m string
	var stop, disabled bool
	c.apply(func() {
		c.panel.renderMessage()
		m, stop, disabled = c.panel.message.Text, c.panel.stop.Visible(), c.panel.resubmit.Disabled()
	})
	if m != "Re-submitting… 12 s of at most 30 s" || !stop {
		t.Fatalf("in flight: %q, stop visible %v", m, stop)
	}
	if !disabled {
		t.Fatal("the item in flight can be re-submitted again")
	}
	// Another item is usable meanwhile.
	c.apply(func() { c.items.move(1) })
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == "b" })
	c.apply(func() { m, stop, disabled = c.panel.message.Text, c.panel.stop.Visible(), c.panel.resubmit.Disabled() })
	if disabled || stop || strings.Contains(m, "Re-submitting") {
		t.Fatalf("the other item is not usable: resubmit disabled %v, message %q", disabled, m)
	}
	c.apply(func() { c.items.move(-1) })
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == "a" })
	c.apply(func() { test.Tap(c.panel.stop) })
	c.Settle()
	if got := wf.Calls(); len(got) != 1 {
		t.Fatalf("calls %v: stopping the wait must not send again", got)
	}
	if m := c.panel.message.Text; !strings.Contains(m, "no answer came back") || !strings.Contains(m, "same key") { // settled: no writer left
		t.Fatalf("after Stop waiting: %q", m)
	}
	if c.cell(0, c.col(t, "Action")).Text != "unknown" {
		t.Fatalf("row action %q", c.cell(0, c.col(t, "Action")).Text)
	}
}

// Settle2 waits until cond holds on the UI side: a refresh may start
// another, and an action in flight keeps Settle waiting, so it polls.
func (c *Console) Settle2(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ok := false
		c.apply(func() { ok = cond() })
		if ok {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the window never reached the expected state")
}

// A message names the code once, says what happened in words
// and ends its sentence; the raw text goes to Details.
func TestMessagesKeepDeveloperTextInDetails(t *testing.T) {
	err := &client.Error{Code: policy.CodeInvalidResponse, HTTPStatus: 200, Class: client.ClassBadAnswer,
		Message: "decoding the answer: unexpected end of JSON input"}
	head, details := explain(err)
	if strings.Count(head, "INVALID_RESPONSE") != 1 || strings.Contains(head, "JSON") || strings.Contains(head, "HTTP") || !strings.HasSuffix(head, ".") {
		t.Fatalf("headline %q", head)
	}
	if !strings.Contains(details, "unexpected end of JSON input") {
		t.Fatalf("details %q", details)
	}
	head, details = explain(errors.New("sqlite3: database is locked"))
	if strings.Contains(head, "sqlite") || !strings.Contains(details, "database is locked") {
		t.Fatalf("%q / %q", head, details)
	}
	// In the panel: the headline above, the raw text in the Details area.
	v := errorItem("a", "CLASSIFIER_TIMEOUT")
	wf := &fakeWorkflow{items: []review.ItemView{v}}
	wf.resubmit = func(ctx context.Context, id string) (review.Result, error) {
		a := wf.setAction(id, policy.ActionResubmit, policy.ActionUnknown, policy.CodeInvalidResponse)
		return review.Result{Action: a, Err: err}, nil
	}
	c := newTestConsole(t, wf)
	c.apply(func() { c.panel.act(policy.ActionResubmit, "Re-submitting", wf.Resubmit) })
	c.Settle()
	if m := c.panel.message.Text; strings.Contains(m, "JSON") || strings.Count(m, "INVALID_RESPONSE") != 1 {
		t.Fatalf("message %q", m)
	}
}

// A change another process makes to the cache is noticed and
// the table and the panel redrawn.
func TestTheWindowNoticesAnotherProcessChangingTheCache(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsole(t, wf)
	ctx := context.Background()
	c.checkCache(ctx) // the first look sets the mark
	wf.mu.Lock()
	score := 62
	wf.items[0].Status, wf.items[0].ErrorCode, wf.items[0].RiskScore, wf.items[0].Recommendation = policy.StatusScored, "", &score, policy.RecommendReview
	wf.version++
	wf.mu.Unlock()
	c.checkCache(ctx)
	c.Settle()
	if st := c.cell(0, c.col(t, "Status")).Text; !strings.Contains(st, "scored") || !strings.Contains(c.panel.verdict.Text, "62") {
		t.Fatalf("row %q, panel %q", st, c.panel.verdict.Text)
	}
}

// The strip follows the probe, and when the API answers again
// the queued and unknown actions go out without a click.
func TestTheStripFollowsTheAPIAndTheOutboxFlushesByItself(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "CLASSIFIER_TIMEOUT"), errorItem("b", "INTERNAL_ERROR")}}
	c := newTestConsole(t, wf)
	wf.setAction("a", policy.ActionResubmit, policy.ActionQueued, policy.CodeAPIUnreachable)
	wf.setAction("b", policy.ActionResubmit, policy.ActionUnknown, policy.CodeOutcomeUnknown)
	wf.mu.Lock()
	wf.probeErr = errors.New("down")
	wf.mu.Unlock()
	ctx := context.Background()
	if st := c.probe(ctx); st != review.ConnOffline {
		t.Fatalf("down: %s", st)
	}
	c.Settle()
	if txt := c.strip.conn.Text; !strings.Contains(txt, "Offline") {
		t.Fatalf("down: %q", txt)
	}
	if strings.Contains(strings.Join(wf.Calls(), ","), "flush") {
		t.Fatal("flushed while the API is down")
	}
	wf.mu.Lock()
	wf.probeErr = nil
	wf.mu.Unlock()
	if st := c.probe(ctx); st != review.ConnOnline {
		t.Fatalf("up: %s", st)
	}
	c.Settle() // the flush it started, and the redraw after it
	var conn, pages string
	c.apply(func() { conn, pages = c.strip.conn.Text, c.strip.pages.Text })
	wf.mu.Lock()
	flushed := wf.flushed
	wf.mu.Unlock()
	if !strings.Contains(conn, "Online") || flushed != 2 || !strings.Contains(pages, "Sent 2 actions") {
		t.Fatalf("strip %q, flushed %d, %q", conn, flushed, pages)
	}
}

// Also: after an action the selection moves to the next item that needs
// the reviewer (a preference, on by default).
func TestAfterAnActionTheSelectionMovesToTheNextItemNeedingMe(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED"), scoredItem("s", 10, policy.RecommendForward), errorItem("b", "INTERNAL_ERROR")}}
	c := newTestConsole(t, wf)
	c.apply(func() { c.panel.requestFile("Please send it again.") })
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == "b" })
	if c.items.row != 2 {
		t.Fatalf("row %d", c.items.row)
	}
	c.settings.store().SetString(prefAutoAdvance, "off")
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "r"); key(c)(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	c.Settle()
	if c.panel.itemID != "b" {
		t.Fatalf("with the preference off the selection moved to %q", c.panel.itemID)
	}
}

// All batches show the customer; the file name takes
// the spare width; a narrow table drops the least needed columns first.
func TestColumnsFitTheWidthAndAllBatchesShowTheCustomer(t *testing.T) {
	wf := twoBatches()
	c := newTestConsole(t, wf)
	if c.items.hasColumn("Customer") {
		t.Fatal("a customer column inside one batch")
	}
	c.apply(func() { c.batches.all.SetChecked(true) })
	c.Settle()
	if !c.items.hasColumn("Customer") {
		t.Fatal("no customer column across all batches")
	}
	refs := map[string]bool{}
	for r := range c.items.rows {
		refs[c.cell(r, c.col(t, "Customer")).Text] = true
	}
	if !refs["CUST-7048"] || !refs["CUST-7043"] {
		t.Fatalf("customer cells %v", refs)
	}
	c.apply(func() { c.items.table.Resize(fyne.NewSize(1000, 400)) })
	file := c.items.cols[0]
	for _, col := range c.items.cols[1:] {
		if col.width > file.width {
			t.Fatalf("%s (%v) is wider than the file name (%v)", col.title, col.width, file.width)
		}
	}
	c.apply(func() { c.items.table.Resize(fyne.NewSize(560, 400)) })
	var total float32
	for _, col := range c.items.cols {
		total += col.width
	}
	if total > 560 || c.items.hasColumn("Action") || !c.items.hasColumn("Code") || !c.items.hasColumn("Status") || !c.items.hasColumn("Score") {
		t.Fatalf("at 560 px: %v wide, columns %v", total, c.items.cols)
	}
}

// The whole window fits 800×600, and the panel can collapse.
func TestTheWindowFits800x600(t *testing.T) {
	c := newTestConsole(t, twoBatches())
	if m := c.win.Content().MinSize(); m.Width > 800 || m.Height > 600 {
		t.Fatalf("the window needs %v", m)
	}
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "p") })
	if c.panel.content.Visible() {
		t.Fatal("p did not hide the panel")
	}
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "p") })
	if !c.panel.content.Visible() {
		t.Fatal("p did not show the panel again")
	}
}

// One vocabulary: the status filter says what the rows say.
func TestTheStatusFilterSpeaksTheRowsWords(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{})
	for _, o := range c.items.status.Options {
		if strings.Contains(o, "_") {
			t.Fatalf("raw status %q in the filter", o)
		}
	}
	for _, s := range policy.Statuses() {
		it := policy.Item{Status: s}
		if s == policy.StatusScored {
			n := 5
			it.RiskScore, it.Recommendation = &n, policy.RecommendForward
		}
		text, _ := statusLook(it)
		if !strings.Contains(text, statusWord(s)) {
			t.Fatalf("row %q does not use the word %q", text, statusWord(s))
		}
	}
	if plural(1, "action") != "1 action" || humanDuration(29999*time.Millisecond) != "30 s" || humanDuration(1234*time.Millisecond) != "1.2 s" {
		t.Fatal("words")
	}
	if attemptLabel("resubmit", 2) != "re-submission, connection retry" {
		t.Fatal(attemptLabel("resubmit", 2))
	}
}

// The export is named after the customer and the date, and
// only its owner can read it.
func TestExportIsNamedForPeopleAndPrivate(t *testing.T) {
	if n := exportName("CUST-7048", time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)); n != "CUST-7048-2026-11-30.csv" {
		t.Fatal(n)
	}
	if n := exportName("a/b c", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)); n != "a-b-c-2026-01-02.csv" {
		t.Fatal(n)
	}
	c := newTestConsole(t, &fakeWorkflow{})
	path := filepath.Join(t.TempDir(), "out.csv")
	if err := os.WriteFile(path, nil, 0o644); err != nil { // as the save dialog leaves it
		t.Fatal(err)
	}
	if _, err := c.writeExport(context.Background(), path, "", true); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
}

// exportFails is a workflow whose export breaks off part-way, as a full
// disk or a cache error would.
type exportFails struct{ *fakeWorkflow }

func (exportFails) ExportCSV(_ context.Context, w io.Writer, _ string) (int, error) {
	if _, err := io.WriteString(w, "item,status\nitm_1,error\n"); err != nil {
		return 0, err
	}
	return 1, errors.New("the cache could not be read")
}

// A failed export from the window leaves the file it would have replaced
// whole, and leaves nothing else behind in its folder.
func TestAFailedExportLeavesTheOldFileWhole(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{})
	c.wf = workflowOf(exportFails{&fakeWorkflow{}})
	dir := t.TempDir()
	path := filepath.Join(dir, "CUST-7048-2026-11-30.csv")
	const old = "item,status\nitm_1,scored\nitm_2,scored\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.writeExport(context.Background(), path, "", true); err == nil {
		t.Fatal("a broken export reported success")
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != old {
		t.Fatalf("the old export became %q (%v)", got, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("the folder holds %d files after a failed export", len(ents))
	}
}

// openUploadDialog opens the upload dialog with u on a console of one item
// that needs a new file.
func openUploadDialog(t *testing.T) (*Console, *fakeWorkflow, *uploadDialog) {
	t.Helper()
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}
	c := newTestConsole(t, wf)
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "u") })
	if c.uploadDlg == nil {
		t.Fatal("the upload dialog did not open")
	}
	return c, wf, c.uploadDlg
}

// A path can be typed; a refused file is explained in words.
func TestTheUploadDialogTakesATypedPathAndExplainsARefusal(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "note.jpg")
	if err := os.WriteFile(txt, []byte("this is not a photo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := checkPath(txt)
	if err == nil || !strings.Contains(err.Error(), "plain text") || strings.Contains(err.Error(), "starts with") {
		t.Fatalf("%v", err)
	}
	jpg := filepath.Join(dir, "new.jpg")
	if err := os.WriteFile(jpg, []byte("\xFF\xD8\xFF\xE0rest"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, wf, ud := openUploadDialog(t)
	if !ud.upload.Disabled() {
		t.Fatal("the upload dialog opened with Upload on")
	}
	if c.win.Canvas().Focused() != ud.path {
		t.Fatal("the path box does not have the focus: typing goes nowhere")
	}
	c.apply(func() { ud.path.SetText(txt) })
	c.Settle() // the check runs off the UI goroutine
	if !ud.upload.Disabled() || !strings.Contains(ud.why.Text, "plain text") {
		t.Fatalf("refusal %q", ud.why.Text)
	}
	// A dropped file lands in the open dialog.
	c.apply(func() { c.onDropped(fyne.NewPos(1, 1), []fyne.URI{storageURI(jpg)}) })
	c.Settle()
	if ud.path.Text != jpg || ud.upload.Disabled() {
		t.Fatalf("drop: %q, upload disabled %v", ud.path.Text, ud.upload.Disabled())
	}
	c.apply(func() { test.Tap(ud.upload) })
	c.Settle()
	if got := wf.Calls(); len(got) != 1 || got[0] != "replace a" {
		t.Fatalf("calls %v", got)
	}
	if c.settings.store().String(prefLastFolder) != dir {
		t.Fatalf("last folder %q", c.settings.store().String(prefLastFolder))
	}
}

// Enter pressed right after typing a path, while its check still runs
// off the UI goroutine, uploads once the check passes: it is not lost
// (the keys typed next went into the box). A path that fails its check
// is not uploaded, Enter or not.
func TestEnterWhileThePathIsCheckedUploadsOnceItPasses(t *testing.T) {
	dir := t.TempDir()
	jpg, txt := filepath.Join(dir, "new.jpg"), filepath.Join(dir, "note.jpg")
	if err := os.WriteFile(jpg, []byte("\xFF\xD8\xFF\xE0rest"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(txt, []byte("this is not a photo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	pathCheck = func(p string) error { <-release; return checkPath(p) }
	t.Cleanup(func() { pathCheck = checkPath })
	for _, tc := range []struct {
		path  string
		calls int
	}{{txt, 0}, {jpg, 1}} {
		release = make(chan struct{})
		c, wf, ud := openUploadDialog(t)
		c.apply(func() {
			ud.path.SetText(tc.path)
			ud.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // before the check answers
		})
		close(release)
		c.Settle()
		if got := wf.Calls(); len(got) != tc.calls {
			t.Fatalf("%s: calls %v, want %d", filepath.Base(tc.path), got, tc.calls)
		}
		if open := c.uploadDlg != nil; open != (tc.calls == 0) {
			t.Fatalf("%s: dialog open %v", filepath.Base(tc.path), open)
		}
	}
}

// A named pipe typed or dropped into the upload dialog never freezes the
// window: its path is checked off the UI goroutine, and refused without
// being opened (opening a FIFO waits for a writer that never comes).
func TestANamedPipeInTheUploadDialogDoesNotFreezeTheWindow(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "scan.jpg")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	// Whatever happens, nothing stays blocked on the pipe after the test:
	// a writer that comes and goes ends any open or read of it.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	c, wf, ud := openUploadDialog(t)
	typed := make(chan struct{})
	go func() { // the keystrokes, on the UI goroutine
		fyne.DoAndWait(func() { c.apply(func() { ud.path.SetText(fifo) }) })
		close(typed)
	}()
	select {
	case <-typed:
	case <-time.After(10 * time.Second):
		t.Fatal("the window froze on a named pipe typed in the path box")
	}
	// The UI goroutine takes the next event at once.
	answered := make(chan struct{})
	go func() {
		fyne.DoAndWait(func() { c.apply(func() {}) })
		close(answered)
	}()
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Fatal("the window does not answer while the named pipe is checked")
	}
	c.Settle()
	var why string
	var off bool
	c.apply(func() { why, off = ud.why.Text, ud.upload.Disabled() })
	if !off || !strings.Contains(why, "named pipe") {
		t.Fatalf("a named pipe: Upload disabled %v, explanation %q", off, why)
	}
	c.apply(func() { test.Tap(ud.upload) })
	c.Settle()
	if got := wf.Calls(); len(got) != 0 {
		t.Fatalf("a named pipe was sent: %v", got)
	}
}

func storageURI(path string) fyne.URI { return storage.NewFileURI(path) }

// Text from the service is drawn as what it is: control and bidi characters
// escaped, one line, in the row and the panel, as on the command line.
func TestServiceTextIsDrawnEscaped(t *testing.T) {
	v := errorItem("a", "SHADY\x1b[2J_CODE")
	v.FileName = "invoice\u202egpj.exe"
	v.CustomerRef = "CUST-1\nline two"
	wf := &fakeWorkflow{items: []review.ItemView{v}}
	c := newTestConsole(t, wf)
	c.Settle()
	if c.panel.itemID != "a" || !c.panel.loaded {
		t.Fatalf("panel on %q", c.panel.itemID)
	}
	texts := map[string]string{
		"file cell": c.cellWhole(0, c.col(t, "File")), // a narrow cell cuts it, its tooltip does not
		"title":     c.panel.title.Text,
		"subtitle":  c.panel.subtitle.Text,
		"reported":  c.panel.reported.Text,
	}
	for where, s := range texts {
		for _, r := range s {
			if r < 0x20 || r == 0x7f || r == '\u202e' {
				t.Errorf("%s %q holds %U raw", where, s, r)
			}
		}
	}
	if !strings.Contains(texts["file cell"], `\u202e`) || !strings.Contains(texts["subtitle"], `CUST-1\nline two`) || !strings.Contains(texts["reported"], `\x1b`) {
		t.Fatalf("escaped texts %q", texts)
	}
}

// The upload dialog runs the viewer's checks (review.CheckUploadFile)
// before Upload turns on: a damaged file is refused in the viewer's words,
// and one the console could not check goes only once she ticks, from the
// keyboard, that she uploads it unchecked.
func TestTheUploadDialogRefusesADamagedFileAndAsksBeforeAnUncheckedOne(t *testing.T) {
	dir := t.TempDir()
	half, odd := filepath.Join(dir, "half.jpg"), filepath.Join(dir, "odd.jpg")
	for _, p := range []string{half, odd} {
		if err := os.WriteFile(p, []byte("\xFF\xD8\xFF\xE0rest"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, wf, ud := openUploadDialog(t)
	wf.mu.Lock()
	wf.uploadChecks = map[string]error{
		half: policy.Errorf(policy.CodeInvalidFile, "The file is cut short: ask the customer for the whole file."),
		odd:  policy.Errorf(policy.CodeFileUnchecked, "The console cannot show this JPEG. The service may still read it"),
	}
	wf.mu.Unlock()
	c.apply(func() { ud.path.SetText(half) })
	c.Settle()
	if !ud.upload.Disabled() || !strings.Contains(ud.why.Text, "cut short") || ud.anyway.Visible() {
		t.Fatalf("damaged: upload off %v, %q, unchecked box shown %v", ud.upload.Disabled(), ud.why.Text, ud.anyway.Visible())
	}
	c.apply(func() { ud.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	c.Settle()
	if got := wf.Calls(); len(got) != 0 {
		t.Fatalf("a damaged file was sent: %v", got)
	}

	c.apply(func() { ud.path.SetText(odd) })
	c.Settle()
	if !ud.upload.Disabled() || !ud.anyway.Visible() || ud.anyway.Checked || !strings.Contains(ud.why.Text, "cannot show") {
		t.Fatalf("unchecked: upload off %v, box shown %v ticked %v, %q", ud.upload.Disabled(), ud.anyway.Visible(), ud.anyway.Checked, ud.why.Text)
	}
	c.apply(func() { ud.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	c.Settle()
	if got := wf.Calls(); len(got) != 0 {
		t.Fatalf("sent before she said so: %v", got)
	}
	// Tab from the path (past Browse) to the box, Space ticks it, Enter uploads.
	c.apply(func() {
		for c.win.Canvas().Focused() != fyne.Focusable(ud.anyway) {
			c.win.Canvas().FocusNext()
			if c.win.Canvas().Focused() == fyne.Focusable(ud.path) {
				t.Fatal("Tab never reaches the 'upload it unchecked' box")
			}
		}
		ud.anyway.TypedRune(' ')
		ud.anyway.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	c.Settle()
	if got := wf.Calls(); len(got) != 1 || got[0] != "replace unchecked a" {
		t.Fatalf("calls %v, want one unchecked upload", got)
	}
}

// Back online: when the API answers again after an outage the window
// syncs then, not at the next scheduled time, and the strip says so.
func TestBackOnlineTheWindowSyncsAtOnce(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsoleWith(t, wf, Options{SyncEvery: time.Hour})
	ctx := context.Background()
	syncs := func() int {
		n := 0
		for _, call := range wf.Calls() {
			if strings.HasPrefix(call, "sync") {
				n++
			}
		}
		return n
	}
	c.probe(ctx) // online: nothing to catch up on
	c.Settle()
	before := syncs()
	if before != 0 {
		t.Fatalf("%d syncs while online all along", before)
	}
	wf.mu.Lock()
	wf.probeErr = errors.New("down")
	wf.mu.Unlock()
	if st := c.probe(ctx); st != review.ConnOffline {
		t.Fatalf("down: %s", st)
	}
	c.Settle()
	wf.mu.Lock()
	wf.probeErr = nil
	wf.mu.Unlock()
	if st := c.probe(ctx); st != review.ConnOnline {
		t.Fatalf("up: %s", st)
	}
	c.Settle()
	var pages string
	c.apply(func() { pages = c.strip.pages.Text })
	if syncs() != 1 || !strings.HasPrefix(pages, "Synced") {
		t.Fatalf("back online: %d syncs, strip %q", syncs(), pages)
	}
	c.probe(ctx) // still online: no second sync
	c.Settle()
	if syncs() != 1 {
		t.Fatalf("%d syncs after a second probe online", syncs())
	}
}

// After an action the top line says its result where she looks, though
// the panel moved on to the next item, and b goes back to the item she
// left; while it waits (an offline request takes seconds) it says so at once.
func TestAnActionsResultIsSaidWithAKeyBack(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED"), scoredItem("s", 10, policy.RecommendForward), errorItem("b", "INTERNAL_ERROR")}}
	c := newTestConsole(t, wf)
	pages := func() (s string) { c.apply(func() { s = c.strip.pages.Text }); return s }
	wf.mu.Lock() // the request waits on the workflow
	c.apply(func() { c.panel.requestFile("Please send it again.") })
	said := pages()
	wf.mu.Unlock()
	if !strings.HasPrefix(said, "a.jpg: requesting a new file…") {
		t.Fatalf("while it waits the strip says %q", said)
	}
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == "b" })
	if got := pages(); got != "a.jpg: request for a new file done · b goes back to it" {
		t.Fatalf("after the request the strip says %q", got)
	}
	c.apply(c.focusItems)
	typeText(c, "b")
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == "a" })

	c.apply(func() { c.items.move(2) })
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == "b" })
	c.apply(func() { c.panel.act(policy.ActionResubmit, "Re-submitting", wf.Resubmit) })
	c.Settle()
	if got := pages(); got != "b.jpg: re-submission queued: goes out when the service answers · b goes back to it" {
		t.Fatalf("a queued re-submission: %q", got)
	}
	wf.resubmit = func(_ context.Context, id string) (review.Result, error) { // the service answers: scored
		a := wf.setAction(id, policy.ActionResubmit, policy.ActionDone, "")
		wf.mu.Lock()
		wf.items[2] = scoredItem("b", 9, policy.RecommendForward)
		wf.items[2].Band = policy.BandLow
		wf.mu.Unlock()
		return review.Result{Action: a}, nil
	}
	c.apply(func() { c.items.move(-2); c.items.move(2) })
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == "b" && c.flight("b") == nil })
	c.apply(func() { c.panel.act(policy.ActionResubmit, "Re-submitting", wf.Resubmit) })
	c.Settle()
	if got := pages(); got != "b.jpg: re-submission done: 9 · low (forward) · b goes back to it" {
		t.Fatalf("a re-submission scored: %q", got)
	}
}
