package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// fakeWorkflow is a Workflow held in memory; the real one is tested in
// package review against the reference service.
type fakeWorkflow struct {
	mu        sync.Mutex
	views     []review.View // the saved views, in order
	filters   []store.ItemFilter
	items     []review.ItemView
	status    review.Connectivity
	syncGate  chan struct{} // when set, Sync waits on it
	afterSync []review.ItemView
	calls     []string
	batches   []store.BatchSummary
	version   int64
	probeErr  error
	flushed   int
	actionID  int64
	resubmit  func(ctx context.Context, id string) (review.Result, error) // when set, Resubmit runs it
	kept      map[string]string                                           // item -> the file a failed replacement kept
	entered   chan string                                                 // when set, each call is sent on it too
	// uploadChecks is what CheckUploadFile says of a path (nil: it passed).
	uploadChecks map[string]error
}

func (f *fakeWorkflow) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	entered := f.entered
	f.mu.Unlock()
	if entered != nil {
		entered <- s
	}
}

func (f *fakeWorkflow) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeWorkflow) Sync(ctx context.Context, progress func(review.SyncProgress)) (review.SyncProgress, error) {
	f.record("sync")
	f.mu.Lock()
	gate := f.syncGate
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return review.SyncProgress{}, policy.Errorf(policy.CodeCancelled, "sync cancelled by you after 0 pages") // as review.Sync says it
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// The news, as review.Sync reports it: what needs the reviewer now
	// and did not before; none after a first sync.
	var news []string
	if f.afterSync != nil {
		before := map[string]bool{}
		for _, r := range f.items {
			before[r.ID] = needsReviewer(r)
		}
		for _, r := range f.afterSync {
			if needsReviewer(r) && !before[r.ID] && !f.status.LastSync.IsZero() {
				news = append(news, r.ID)
			}
		}
		sort.Strings(news)
		f.items = f.afterSync
	}
	p := review.SyncProgress{Pages: 1, Items: len(f.items), Changed: len(f.items), NewItems: news}
	progress(p)
	f.status.Conn.State = review.ConnOnline
	return p, nil
}

func (f *fakeWorkflow) Flush(context.Context) (review.FlushResult, error) {
	f.record("flush")
	f.mu.Lock()
	defer f.mu.Unlock()
	var fr review.FlushResult
	for i := range f.items {
		if a := f.items[i].Action; a != nil && (a.State == policy.ActionQueued || a.State == policy.ActionUnknown) {
			a.State, a.Code = policy.ActionDone, ""
			fr.Results = append(fr.Results, review.Result{Action: store.Action{ID: a.ID, State: policy.ActionDone}})
			fr.Done++
		}
	}
	f.flushed += len(fr.Results)
	return fr, nil
}
func (f *fakeWorkflow) Probe(context.Context) (bool, error) {
	f.record("probe")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.probeErr != nil {
		f.status.Conn.State = review.ConnOffline
	} else {
		f.status.Conn.State = review.ConnOnline
	}
	return true, nil
}
func (f *fakeWorkflow) CacheVersion(context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.version, nil
}
func (f *fakeWorkflow) Connectivity(context.Context) (review.Connectivity, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status, nil
}
func (f *fakeWorkflow) Batches(_ context.Context, search string, _ int) ([]store.BatchSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.batches == nil {
		return []store.BatchSummary{{ID: "bat_1", CustomerRef: "CUST-1", CreatedAt: time.Now(), Items: 1}}, nil
	}
	var out []store.BatchSummary
	for _, b := range f.batches {
		if strings.Contains(b.CustomerRef, search) {
			out = append(out, b)
		}
	}
	return out, nil
}
func (f *fakeWorkflow) Items(_ context.Context, flt store.ItemFilter) ([]review.ItemView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filters = append(f.filters, flt)
	var out []review.ItemView
	for _, it := range f.items {
		if (flt.BatchID == "" || flt.BatchID == it.BatchID) && (flt.IDs == nil || slices.Contains(flt.IDs, it.ID)) {
			out = append(out, copyView(it))
		}
	}
	out = out[min(flt.Offset, len(out)):]
	if flt.Limit > 0 && len(out) > flt.Limit {
		out = out[:flt.Limit]
	}
	return out, nil
}
func (f *fakeWorkflow) CountItems(ctx context.Context, flt store.ItemFilter) (int, error) {
	flt.Limit, flt.Offset = 0, 0
	rows, err := f.Items(ctx, flt)
	n := 0
	for _, r := range rows {
		if !flt.NeedsAction || needsReviewer(r) {
			n++
		}
	}
	return n, err
}
func (f *fakeWorkflow) EachItem(ctx context.Context, flt store.ItemFilter, fn func(review.ItemView) error) error {
	rows, err := f.Items(ctx, flt)
	for _, r := range rows {
		if err == nil {
			err = fn(r)
		}
	}
	return err
}
func (f *fakeWorkflow) Item(_ context.Context, id string) (review.Detail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, it := range f.items {
		if it.ID == id {
			return review.Detail{ItemView: copyView(it), KeptFile: f.kept[id]}, nil
		}
	}
	return review.Detail{}, policy.Errorf(policy.CodeNotFound, "no item %s", id)
}
func copyView(v review.ItemView) review.ItemView {
	if v.Action != nil {
		a := *v.Action
		v.Action = &a
	}
	return v
}

// setAction records an action on an item, as the outbox would.
func (f *fakeWorkflow) setAction(id string, kind policy.ActionKind, state policy.ActionState, code policy.Code) store.Action {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actionID++
	for i := range f.items {
		if f.items[i].ID == id {
			f.items[i].Action = &store.ActionRef{ID: f.actionID, Kind: kind, State: state, Code: code}
			if state.Open() {
				f.items[i].Next = policy.Next{Kind: policy.NextNone}
			}
		}
	}
	return store.Action{ID: f.actionID, ItemID: id, Kind: kind, State: state, LastErrorCode: code}
}

func (f *fakeWorkflow) Resubmit(ctx context.Context, id string) (review.Result, error) {
	f.record("resubmit " + id)
	if f.resubmit != nil {
		return f.resubmit(ctx, id)
	}
	a := f.setAction(id, policy.ActionResubmit, policy.ActionQueued, policy.CodeAPIUnreachable)
	return review.Result{Action: a, Err: &client.Error{Code: policy.CodeAPIUnreachable, Class: client.ClassNotConnected}}, nil
}
func (f *fakeWorkflow) RequestFile(_ context.Context, id, msg string) (review.Result, error) {
	f.record("request " + id + " " + msg)
	a := f.setAction(id, policy.ActionFileRequest, policy.ActionDone, "")
	return review.Result{Action: a}, nil
}
func (f *fakeWorkflow) ReplaceFile(_ context.Context, id, path string, opt review.ReplaceOptions) (review.Result, error) {
	if opt.Unchecked {
		f.record("replace unchecked " + id)
	} else {
		f.record("replace " + id)
	}
	return review.Result{}, policy.Errorf(policy.CodeInvalidFile, "the file is not a JPEG, PNG, WebP or PDF")
}
func (f *fakeWorkflow) CheckUploadFile(_ context.Context, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.uploadChecks[path]
}
func (f *fakeWorkflow) ReplaceAgain(_ context.Context, id string, _ review.ReplaceOptions) (review.Result, error) {
	f.record("replace again " + id)
	a := f.setAction(id, policy.ActionReplacement, policy.ActionDone, "")
	return review.Result{Action: a}, nil
}
func (f *fakeWorkflow) Cancel(_ context.Context, id int64) (store.Action, error) {
	f.record("cancel")
	return store.Action{}, nil
}
func (f *fakeWorkflow) ExportCSV(context.Context, io.Writer, string) (int, error) { return 0, nil }
func (f *fakeWorkflow) Reviewer() string                                          { return "ana" }
func (f *fakeWorkflow) ReviewerFromService() bool                                 { return false }

// The rest of the Workflow, as a 1.0 service without saved views, ages or
// runs would answer: the fakes that test them (teamFake, agesFake,
// viewsFake, fakeBulk) embed this one and override.

func (f *fakeWorkflow) APIVersion() string      { return "1.0" }
func (f *fakeWorkflow) ClaimTTL() time.Duration { return 15 * time.Minute }

// ClaimAway: the default, on the console's clock (Options.Now).
func (f *fakeWorkflow) ClaimAway() time.Duration { return 15 * time.Minute }

func (f *fakeWorkflow) Claim(_ context.Context, id string, _ time.Duration) (policy.Item, error) {
	f.record("claim " + id)
	return policy.Item{}, policy.Errorf(policy.CodeNotFound, "this service offers no claims")
}
func (f *fakeWorkflow) Release(_ context.Context, id string) (policy.Item, error) {
	f.record("release " + id)
	return policy.Item{}, nil
}
func (f *fakeWorkflow) Next(context.Context) (review.NextResult, error) {
	f.record("next")
	return review.NextResult{}, nil
}
func (f *fakeWorkflow) AddNote(_ context.Context, id, _ string) (review.NoteResult, error) {
	f.record("note " + id)
	return review.NoteResult{}, policy.Errorf(policy.CodeNotFound, "this service offers no notes")
}
func (f *fakeWorkflow) OldestWaiting(context.Context, []string) (map[string]review.Aged, error) {
	return nil, nil
}
func (f *fakeWorkflow) Snooze(_ context.Context, id string, _ time.Time, _ string) error {
	f.record("snooze " + id)
	return nil
}
func (f *fakeWorkflow) Views(context.Context) ([]review.View, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.views, nil
}
func (f *fakeWorkflow) SaveView(context.Context, string, review.ViewFilter) error {
	f.record("save view")
	return nil
}

// ItemFilter is review.Service.ItemFilter, with the default ages.
func (f *fakeWorkflow) ItemFilter(v review.ViewFilter) store.ItemFilter {
	out := store.ItemFilter{BatchID: v.BatchID, Status: v.Status, Code: v.Code, NeedsAction: v.NeedsAction, SortBy: v.SortBy, Desc: v.Desc}
	out.Snoozed = v.Snoozed
	if v.Overdue {
		out.OlderThan = policy.DefaultAgeing().Overdue
	}
	return out
}
func (f *fakeWorkflow) PlanResubmit(context.Context, review.Selection) (review.Plan, error) {
	f.record("plan resubmit")
	return review.Plan{Kind: policy.ActionResubmit}, nil
}
func (f *fakeWorkflow) PlanRequestFiles(context.Context, review.Selection) (review.Plan, error) {
	f.record("plan file requests")
	return review.Plan{Kind: policy.ActionFileRequest}, nil
}

func (f *fakeWorkflow) PlanClear(context.Context, review.Selection) (review.Plan, error) {
	f.record("plan a clear")
	return review.Plan{Kind: policy.ActionDecision}, nil
}
func (f *fakeWorkflow) Confirm(_ context.Context, p review.Plan) (review.Run, error) {
	f.record("confirm")
	return review.Run{}, nil
}
func (f *fakeWorkflow) SendRun(context.Context, int64, review.RunOptions) (review.RunResult, error) {
	f.record("send run")
	return review.RunResult{}, nil
}
func (f *fakeWorkflow) CancelRun(context.Context, int64) ([]store.Action, error) {
	f.record("cancel run")
	return nil, nil
}

func errorItem(id string, reported string) review.ItemView {
	code := policy.NormalizeItemCode(reported)
	it := policy.Item{ID: id, BatchID: "bat_1", Kind: policy.KindIDDocument, FileName: id + ".jpg",
		Status: policy.StatusError, ErrorCode: code, ReportedCode: reported, UpdatedAt: time.Now()}
	v := review.ItemView{ItemRow: store.ItemRow{Item: it, CustomerRef: "CUST-1"}, Retryable: policy.Retryable(code)}
	v.Next = policy.NextAction(policy.Situation{Item: it, Now: time.Now()})
	return v
}

func scoredItem(id string, score int, rec policy.Recommendation) review.ItemView {
	it := policy.Item{ID: id, BatchID: "bat_1", Kind: policy.KindSelfie, FileName: id + ".jpg", Status: policy.StatusScored,
		RiskScore: &score, Recommendation: rec, Layers: map[string]float64{"ela": 0.2}}
	return review.ItemView{ItemRow: store.ItemRow{Item: it, CustomerRef: "CUST-1"}, Next: policy.Next{Kind: policy.NextNone}}
}

// fullWorkflow is every screen's interface at once: what a test's fake
// (fakeWorkflow and its embedders) is.
type fullWorkflow interface {
	Syncing
	Listing
	ItemActions
	Team
	Triage
	Bulk
	Documents
	Retention
}

// workflowOf is the window's Workflow on a test's workflow: a fake, all of
// whose interfaces are itself (an embedder's override is what the screen
// gets), or a real *review.Service (ServiceWorkflow).
func workflowOf(wf any) *Workflow {
	switch w := wf.(type) {
	case *Workflow:
		return w
	case *review.Service:
		return ServiceWorkflow(w)
	case fullWorkflow:
		return &Workflow{Sync: w, Listing: w, Actions: w, Team: w, Triage: w, Bulk: w, Documents: w, Retention: w}
	}
	panic(fmt.Sprintf("workflowOf: %T is no workflow", wf))
}

func newTestConsole(t *testing.T, wf *fakeWorkflow) *Console {
	t.Helper()
	return newTestConsoleWith(t, wf, Options{})
}

func newTestConsoleWith(t *testing.T, wf *fakeWorkflow, opts Options) *Console {
	t.Helper()
	return newTestConsoleOn(t, workflowOf(wf), opts)
}

// newTestConsoleOn is a console on a workflow the test put together.
func newTestConsoleOn(t *testing.T, wf *Workflow, opts Options) *Console {
	t.Helper()
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	if opts.Prefs == nil {
		opts.Prefs = a.Preferences()
	}
	c := NewConsole(w, wf, opts)
	// A console's background work ends with its test: left running, a
	// late panel update drew into Fyne's shared text caches while the
	// next test laid out its own window (a race under -race).
	t.Cleanup(func() {
		c.Close()
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a job held by the test's own gate
		}
	})
	c.apply(c.reload) // as the UI goroutine would: one widget update at a time
	c.Settle()
	return c
}

// cell renders a table cell the way the table does.
func (c *Console) cell(row, col int) *widget.Label { return &c.tipCell(row, col).Label }

// tipCell is a cell with its tooltip (hint).
func (c *Console) tipCell(row, col int) *tipLabel {
	l := newTipLabel("")
	c.items.updateCell(widget.TableCellID{Row: row, Col: col}, l)
	return l
}

func (c *Console) col(t *testing.T, title string) int {
	t.Helper()
	for i, c := range c.items.cols {
		if c.title == title {
			return i
		}
	}
	t.Fatalf("no column %s", title)
	return -1
}

func TestEveryErrorCodeShowsNoScoreAndOffersTheRightAction(t *testing.T) {
	codes := []string{"QUANTUM_FLUX_CAPACITOR"}
	for _, c := range policy.ItemCodes() {
		codes = append(codes, string(c))
	}
	for _, reported := range codes {
		t.Run(reported, func(t *testing.T) {
			wf := &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", reported)}}
			c := newTestConsole(t, wf)
			if len(c.items.rows) != 1 || c.panel.itemID != "itm_1" || !c.panel.loaded {
				t.Fatalf("rows %d panel %q", len(c.items.rows), c.panel.itemID)
			}
			for _, col := range []string{"Score", "Rec."} {
				if l := c.cell(0, c.col(t, col)); l.Text != "—" {
					t.Fatalf("%s cell %q for an error: must be a dash, never a number", col, l.Text)
				}
			}
			st := c.cell(0, c.col(t, "Status"))
			if st.Importance == widget.SuccessImportance || strings.Contains(st.Text, "✓") {
				t.Fatalf("an error looks like a pass: %q", st.Text)
			}
			if c.panel.verdict.Importance == widget.SuccessImportance || !strings.Contains(c.panel.verdict.Text, "not checked") {
				t.Fatalf("panel verdict %q", c.panel.verdict.Text)
			}
			retryable := policy.Retryable(policy.NormalizeItemCode(reported))
			if c.panel.resubmit.Disabled() == retryable {
				t.Fatalf("Re-submit enabled=%v for %s", !c.panel.resubmit.Disabled(), reported)
			}
			if c.panel.request.Disabled() != retryable {
				t.Fatalf("Request new file enabled=%v for %s", !c.panel.request.Disabled(), reported)
			}
			if !retryable && !strings.Contains(c.panel.why.Text, "new file is needed") {
				t.Fatalf("why: %q", c.panel.why.Text)
			}
			if reported == "QUANTUM_FLUX_CAPACITOR" && !strings.Contains(c.panel.reported.Text, reported) {
				t.Fatalf("the reported code is not shown: %q", c.panel.reported.Text)
			}
		})
	}
}

func TestAnOpenActionDisablesBothActions(t *testing.T) {
	for _, state := range []policy.ActionState{policy.ActionQueued, policy.ActionSending, policy.ActionUnknown} {
		for _, code := range []string{"CLASSIFIER_TIMEOUT", "DECODE_FAILED"} {
			v := errorItem("itm_1", code)
			v.Action = &store.ActionRef{ID: 1, Kind: policy.ActionResubmit, State: state, Key: "k"}
			c := newTestConsole(t, &fakeWorkflow{items: []review.ItemView{v}})
			if !c.panel.resubmit.Disabled() || !c.panel.request.Disabled() || !c.panel.upload.Disabled() {
				t.Fatalf("%s/%s: an open action must disable the actions", code, state)
			}
			if c.panel.cancel.Visible() != (state == policy.ActionQueued) {
				t.Fatalf("cancel visible=%v for %s", c.panel.cancel.Visible(), state)
			}
			if l := c.cell(0, c.col(t, "Action")); l.Text == "" {
				t.Fatalf("the row does not show the action's state")
			}
		}
	}
}

func TestInvalidAnswerNeverLooksChecked(t *testing.T) {
	it := policy.MarkInvalid(policy.Item{ID: "itm_1", BatchID: "bat_1", FileName: "x.jpg", ReportedCode: "CLASSIFIER_TIMEOUT"}, "error with a score")
	c := newTestConsole(t, &fakeWorkflow{items: []review.ItemView{{ItemRow: store.ItemRow{Item: it}}}})
	st := c.cell(0, c.col(t, "Status"))
	if c.cell(0, c.col(t, "Score")).Text != "—" || st.Importance == widget.SuccessImportance || !strings.Contains(st.Text, "invalid") {
		t.Fatalf("invalid item shows %q", st.Text)
	}
	if !c.panel.resubmit.Disabled() {
		t.Fatal("re-submit offered on an invalid answer")
	}
}

func TestOnlyACheckedForwardLooksLikeAPass(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{items: []review.ItemView{scoredItem("a", 12, policy.RecommendForward), scoredItem("b", 90, policy.RecommendReject)}})
	if l := c.cell(0, c.col(t, "Status")); l.Importance != widget.SuccessImportance {
		t.Fatalf("forward: %q %v", l.Text, l.Importance)
	}
	if l := c.cell(0, c.col(t, "Score")); l.Text != "12" {
		t.Fatalf("score %q", l.Text)
	}
	if l := c.cell(1, c.col(t, "Status")); l.Importance == widget.SuccessImportance {
		t.Fatalf("reject looks like a pass")
	}
	if len(c.panel.layers.Objects) != 1 {
		t.Fatalf("layer bars %d", len(c.panel.layers.Objects))
	}
}

func TestStripShowsOfflineAndCircuitOpen(t *testing.T) {
	last := time.Date(2026, 11, 29, 9, 30, 0, 0, time.Local)
	wf := &fakeWorkflow{status: review.Connectivity{Conn: review.Connection{State: review.ConnOffline}, LastSync: last}}
	c := newTestConsole(t, wf)
	if txt := c.strip.conn.Text; !strings.Contains(txt, "Offline") || !strings.Contains(txt, "showing cached data from") || !strings.Contains(txt, "09:30") {
		t.Fatalf("offline strip %q", txt)
	}
	retry := time.Now().Add(time.Hour) // a retry time still ahead
	wf.status = review.Connectivity{Conn: review.Connection{State: review.ConnCircuitOpen, RetryAt: retry}}
	c.apply(c.refreshStrip)
	c.Settle()
	if txt := c.strip.conn.Text; !strings.Contains(txt, "stopped answering") || !strings.Contains(txt, clock(retry)) || c.strip.conn.Importance == widget.SuccessImportance {
		t.Fatalf("circuit strip %q", txt)
	}
}

func TestSyncRunsOffTheUIGoroutineAndUpdatesTheTable(t *testing.T) {
	gate := make(chan struct{})
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("old", "DECODE_FAILED")}, syncGate: gate,
		afterSync: []review.ItemView{scoredItem("new1", 5, policy.RecommendForward), errorItem("new2", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsole(t, wf)
	returned := make(chan struct{})
	go func() { c.apply(c.onSync); close(returned) }()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("onSync blocked while the sync was waiting on the network")
	}
	if !c.strip.syncBtn.Disabled() || !c.strip.progress.Visible() || !c.strip.cancel.Visible() {
		t.Fatal("the strip does not show a running sync")
	}
	c.apply(c.onSync) // a second click while running starts nothing
	close(gate)
	c.Settle()
	if n := strings.Count(strings.Join(wf.Calls(), ","), "sync"); n != 1 {
		t.Fatalf("%d syncs", n)
	}
	if len(c.items.rows) != 2 || c.items.rows[0].ID != "new1" || c.strip.syncBtn.Disabled() || c.strip.progress.Visible() {
		t.Fatalf("after sync: %d rows, button disabled %v", len(c.items.rows), c.strip.syncBtn.Disabled())
	}
	if !strings.Contains(c.strip.conn.Text, "Online") {
		t.Fatalf("strip %q", c.strip.conn.Text)
	}
}

func TestCancelSync(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	wf := &fakeWorkflow{syncGate: gate}
	c := newTestConsole(t, wf)
	c.apply(c.onSync)
	c.apply(c.onCancelSync)
	c.Settle()
	if c.strip.pages.Text != "Sync cancelled after 0 pages." || c.strip.syncBtn.Disabled() {
		t.Fatalf("%q", c.strip.pages.Text)
	}
}

func TestKeyboardResubmitIsOneActionAndExplainsTheOutcome(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{scoredItem("a", 12, policy.RecommendForward), errorItem("b", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsole(t, wf)
	cv := c.win.Canvas()
	c.apply(func() { test.TypeOnCanvas(cv, "r") }) // a scored item: nothing to re-submit
	c.Settle()
	if len(wf.Calls()) != 0 {
		t.Fatalf("calls %v", wf.Calls())
	}
	c.apply(func() {
		cv.(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyDown})
	})
	c.Settle()
	if c.panel.itemID != "b" {
		t.Fatalf("down moved to %q", c.panel.itemID)
	}
	c.apply(func() { test.TypeOnCanvas(cv, "rr") }) // a paid re-run asks first
	if cv.Overlays().Top() == nil || len(wf.Calls()) != 0 {
		t.Fatalf("r did not ask first: calls %v", wf.Calls())
	}
	key := cv.(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()
	wf.mu.Lock()                                                  // hold the workflow so the action is seen in flight
	c.apply(func() { key(&fyne.KeyEvent{Name: fyne.KeyReturn}) }) // Enter confirms
	if l := c.cell(1, c.col(t, "Action")); l.Text != "sending" || !c.panel.resubmit.Disabled() || cv.Overlays().Top() != nil {
		t.Fatalf("in flight: action cell %q, re-submit disabled %v", l.Text, c.panel.resubmit.Disabled())
	}
	c.apply(func() { test.TypeOnCanvas(cv, "r"); key(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	wf.mu.Unlock()
	c.Settle()
	if got := wf.Calls(); len(got) != 1 || got[0] != "resubmit b" {
		t.Fatalf("calls %v: a double press is one action", got)
	}
	if !strings.Contains(c.panel.message.Text, "queued") || !strings.Contains(c.panel.message.Text, "could not be reached") {
		t.Fatalf("message %q", c.panel.message.Text)
	}
}

func TestRefusalIsOneSentence(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("b", "DECODE_FAILED")}}
	c := newTestConsole(t, wf)
	c.apply(func() { c.panel.uploadFile("/tmp/note.txt", review.ReplaceOptions{}) })
	c.Settle()
	if msg := c.panel.message.Text; msg != "The file is not a JPEG, PNG, WebP or PDF." {
		t.Fatalf("%q", msg)
	}
	c.apply(func() { c.panel.requestFile("Please send a new photo.") })
	c.Settle()
	if got := wf.Calls(); got[len(got)-1] != "request b Please send a new photo." {
		t.Fatalf("%v", got)
	}
	if s := sentence(errors.New("boom")); strings.Contains(s, "\n") {
		t.Fatal("multi-line sentence")
	}
}

func TestHeaderSortsAndFiltersReachTheWorkflow(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}
	c := newTestConsole(t, wf)
	last := func() store.ItemFilter {
		wf.mu.Lock()
		defer wf.mu.Unlock()
		return wf.filters[len(wf.filters)-1]
	}
	c.apply(func() { c.items.onSort("score") })
	c.Settle()
	if f := last(); f.SortBy != "score" || f.Desc {
		t.Fatalf("%+v", f)
	}
	c.apply(func() { c.items.onSort("score") })
	c.Settle()
	if f := last(); f.SortBy != "score" || !f.Desc {
		t.Fatalf("a second tap must reverse: %+v", f)
	}
	c.apply(func() {
		c.items.needs.SetChecked(true)
		c.items.code.SetSelected("DECODE_FAILED")
		c.items.status.SetSelected("error")
	})
	c.Settle()
	// Three refreshes ran at once, in any order; the newest one asked for
	// all three filters, and only its answer is shown.
	found := false
	wf.mu.Lock()
	for _, f := range wf.filters {
		found = found || (f.NeedsAction && f.Code == policy.CodeDecodeFailed && f.Status == policy.StatusError && f.BatchID == "bat_1")
	}
	wf.mu.Unlock()
	if !found || c.items.filter().Status != policy.StatusError {
		t.Fatalf("no query with every filter: %+v", wf.filters)
	}
	c.apply(func() { c.batches.all.SetChecked(true) })
	c.Settle()
	if f := last(); f.BatchID != "" || f.Limit == 0 {
		t.Fatalf("all batches: %+v", f)
	}
}

func TestARefreshKeepsTheRowTheReviewerMovedToMeanwhile(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED"), errorItem("b", "INTERNAL_ERROR"), errorItem("c", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsole(t, wf)
	wf.mu.Lock() // the refresh's query is slow
	c.apply(c.items.refresh)
	c.apply(func() { c.items.move(1); c.items.move(1) })
	wf.mu.Unlock()
	c.Settle()
	if c.items.row != 2 || c.panel.itemID != "c" || !c.panel.loaded || c.panel.detail.ID != "c" {
		t.Fatalf("row %d panel %q: the refresh undid the reviewer's move", c.items.row, c.panel.itemID)
	}
}

func TestPreferencesShowTheNameAndSaveAValidURLOnly(t *testing.T) {
	wf := &fakeWorkflow{}
	c := newTestConsole(t, wf)
	var saved []string
	c.settings.saveAPIURL = func(api string) { saved = append(saved, api) }
	c.settings.apiURL = "https://a.example"
	c.apply(func() { c.settings.save("not a url", "dark", true) })
	c.apply(func() { c.settings.save("https://b.example", "light", false) })
	if len(saved) != 1 || saved[0] != "https://b.example" || !strings.Contains(c.strip.pages.Text, "next time") {
		t.Fatalf("saved %v, strip %q", saved, c.strip.pages.Text)
	}
	if c.settings.store().String(prefTheme) != "light" || c.settings.autoAdvance() {
		t.Fatalf("theme %q auto-advance %v", c.settings.store().String(prefTheme), c.settings.autoAdvance())
	}
	// The name is shown, not editable: the dialog has no entry for it.
	c.apply(func() { c.settings.show(c.win) })
	top := c.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no preferences dialog")
	}
	found := false
	for _, o := range test.LaidOutObjects(top) {
		if l, ok := asLabel(o); ok && l.Text == "ana" {
			found = true
		}
		if e, ok := o.(*widget.Entry); ok && e.Text == "ana" {
			t.Fatal("the reviewer's name is editable")
		}
	}
	if !found {
		t.Fatal("the reviewer's name is not shown")
	}
}

func TestTriageKeysDoNothingBehindADialog(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED"), errorItem("b", "CLASSIFIER_TIMEOUT")}}
	c := newTestConsole(t, wf)
	cv := c.win.Canvas()
	c.apply(func() { test.TypeOnCanvas(cv, "f") }) // opens the request dialog
	if cv.Overlays().Top() == nil {
		t.Fatal("f did not open the request dialog")
	}
	key := cv.(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()
	c.apply(func() { key(&fyne.KeyEvent{Name: fyne.KeyDown}); test.TypeOnCanvas(cv, "rf") })
	c.Settle()
	if c.items.row != 0 || len(wf.Calls()) != 0 {
		t.Fatalf("keys acted behind the dialog: row %d calls %v", c.items.row, wf.Calls())
	}
	c.apply(func() { key(&fyne.KeyEvent{Name: fyne.KeyEscape}) })
	if cv.Overlays().Top() != nil {
		t.Fatal("Escape did not close the dialog")
	}
}

// The window owns a context for its background work: closing the window
// cancels a call still pending in the background, and a sync under way.
func TestClosingTheWindowCancelsItsBackgroundWork(t *testing.T) {
	gate := make(chan struct{}) // never opened: the sync waits for its context
	wf := &fakeWorkflow{syncGate: gate}
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewWindow(nil) // closed by the test, not at its cleanup
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	started := make(chan context.Context, 1)
	c.background(func(ctx context.Context) func() {
		started <- ctx
		<-ctx.Done()
		return nil
	})
	var pending context.Context
	select {
	case pending = <-started:
	case <-time.After(time.Minute):
		t.Fatal("the background call did not start")
	}
	c.apply(c.onSync)
	c.mu.Lock()
	syncing := c.syncCancel != nil
	c.mu.Unlock()
	if !syncing || pending.Err() != nil {
		t.Fatalf("before closing: syncing %v, the pending call's context %v", syncing, pending.Err())
	}
	c.win.Close()
	select {
	case <-pending.Done():
	case <-time.After(time.Minute):
		t.Fatal("closing the window left a background call running")
	}
	c.Settle() // the sync ends too: it waited for its context
	if calls := wf.Calls(); !slices.Contains(calls, "sync") {
		t.Fatalf("calls %v", calls)
	}
}

// The fake service offers no documents, as a 1.0 service.
func (f *fakeWorkflow) Document(_ context.Context, id string, version int) (review.Document, error) {
	return review.Document{}, &review.DocumentError{Problem: review.DocNotOffered, ItemID: id, Version: version}
}

func (f *fakeWorkflow) DocumentVersions(_ context.Context, id string) ([]review.DocumentVersion, error) {
	return nil, &review.DocumentError{Problem: review.DocNotOffered, ItemID: id}
}

// The fake cache keeps nothing past its time: there is nothing to purge.
func (f *fakeWorkflow) Purge(context.Context, time.Duration, bool) (review.Purged, error) {
	return review.Purged{}, nil
}

// What opening the cache found wrong (its permissions) is said in the
// window once, at start: a reviewer who started it from a menu never
// reads stderr.
func TestTheWindowSaysTheCacheWasNotPrivate(t *testing.T) {
	const w = "the cache file /home/ana/cache.db was mode 0644 (others could read it): made 0600"
	c := newTestConsoleWith(t, &fakeWorkflow{}, Options{Warnings: []string{w}})
	if c.win.Canvas().Overlays().Top() != nil {
		t.Fatal("a dialog before the window started")
	}
	c.apply(c.Start)
	c.Settle()
	if got := dialogTexts(c); !strings.Contains(got, w) || !strings.Contains(got, "keep its folder private") {
		t.Fatalf("the dialog says %q", got)
	}
	c.apply(c.win.Canvas().Overlays().Top().Hide)
	c.apply(c.Start) // a later read of the cache says nothing again
	c.Settle()
	if c.win.Canvas().Overlays().Top() != nil {
		t.Fatal("said twice")
	}
}

// The shortcut sheet lists the saved views by their Ctrl+N, so that a
// reviewer finds in the window which key applies which view.
func TestTheSheetListsTheSavedViews(t *testing.T) {
	wf := &fakeWorkflow{views: []review.View{{Name: "Needs my action, oldest first"}, {Name: "Overdue"}, {Name: "Mine to do"}}}
	c := newTestConsole(t, wf)
	c.apply(c.showShortcuts)
	c.Settle()
	txt := dialogTexts(c)
	for _, want := range []string{`the view "Mine to do"`, `the view "Overdue"`, "listed under this group"} {
		if !strings.Contains(txt, want) {
			t.Fatalf("the sheet does not say %q:\n%s", want, txt)
		}
	}
}
