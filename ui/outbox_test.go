package ui

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// realService is a console's workflow on the reference service: its own
// cache in dir, its own token.
func realService(t *testing.T, srv *screenapi.Server, tok, dir string, mod ...func(*review.Config)) *review.Service {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := client.DefaultConfig()
	cfg.BaseURL, cfg.Token = srv.URL(), client.Secret(tok)
	cfg.Timeout, cfg.Reserve, cfg.RetrySleep = 20*time.Second, 20*time.Millisecond, time.Millisecond
	api, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close(); db.Close() })
	c := review.Config{Budget: cfg.Budget(), Reviewer: "local-name"}
	for _, m := range mod {
		m(&c)
	}
	svc, err := review.New(db, api, c)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// realConsole is a window on a real workflow.
func realConsole(t *testing.T, wf any) *Console {
	t.Helper()
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
	t.Cleanup(func() { c.Close(); c.Settle() }) // its background work ends before the cache closes
	c.apply(c.reload)
	c.Settle()
	return c
}

// Two reviewers, two consoles, one service: what ben's work makes need
// ana is news in ana's window after her next sync.
func TestTwoConsolesTheNewsIncludesWhatAnotherReviewerDid(t *testing.T) {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Reviewers: screenapi.DemoReviewers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ana := realService(t, srv, "demo-token-ana-0001", t.TempDir())
	ben := realService(t, srv, "demo-token-ben-0001", t.TempDir())
	ctx := context.Background()
	if _, err := ben.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	c := realConsole(t, ana)
	c.apply(c.onSync) // her first sync: everything, and no news
	c.Settle()
	if c.strip.news.Visible() {
		t.Fatalf("news after the first sync: %q", c.strip.news.Text)
	}
	id := srv.FindCode("DECODE_FAILED")
	if res, err := ben.Actions.RequestFile(ctx, id, "Please send a sharper photo."); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ben's file request: %+v %v", res, err)
	}
	c.apply(c.onSync)
	c.Settle()
	srv.Script(id, screenapi.Outcome{Code: "DECODE_FAILED"})
	if res, err := ben.Actions.Replace(ctx, id, "scan.png", screenapi.Scan(1<<10), review.ReplaceOptions{}); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ben's upload: %+v %v", res, err)
	}
	c.apply(c.onSync)
	c.Settle()
	var visible bool
	var text string
	c.apply(func() { visible, text = c.strip.news.Visible(), c.strip.news.Text })
	if !visible || !strings.Contains(text, "1 new item needs you") {
		t.Fatalf("ana's window after ben's upload came back unreadable: news shown %v, %q; strip %q", visible, text, c.strip.pages.Text)
	}
}

// A re-submission the service rate limited is queued, and its row says
// until when it waits.
func TestARateLimitedActionsRowSaysUntilWhen(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "CLASSIFIER_TIMEOUT")}}
	wf.setAction("a", policy.ActionResubmit, policy.ActionQueued, policy.CodeRateLimited)
	until := time.Date(2026, 12, 1, 14, 5, 0, 0, time.Local)
	wf.mu.Lock()
	wf.items[0].Action.NotBefore = until
	wf.mu.Unlock()
	c := newTestConsole(t, wf)
	if got := c.cell(0, c.col(t, "Action")).Text; got != "queued · rate limited until 14:05" {
		t.Fatalf("the row says %q", got)
	}
}

// The strip shows the outbox at all times, never a retry time of 00:00,
// and speaks of cached data only when there is some.
func TestTheStripTellsTheOutboxAndNoRetryTimeThatPassed(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "CLASSIFIER_TIMEOUT")}}
	wf.status = review.Connectivity{Conn: review.Connection{State: review.ConnOnline}}
	c := newTestConsole(t, wf)
	if txt := c.strip.synced.Text; !strings.Contains(txt, "outbox empty") {
		t.Fatalf("an empty outbox: %q", txt)
	}
	now := time.Now()
	wf.mu.Lock()
	wf.status.Outbox = store.OutboxCount{Queued: 3, Waiting: 2, WaitUntil: now.Add(time.Hour), Unknown: 1}
	wf.mu.Unlock()
	c.apply(c.refreshStrip)
	c.Settle()
	want := "3 queued (rate limited until " + clock(now.Add(time.Hour)) + ") · 1 unknown"
	if txt := c.strip.synced.Text; !strings.Contains(txt, want) {
		t.Fatalf("the strip says %q, want %q in it", txt, want)
	}
	for _, retry := range []time.Time{{}, now.Add(-time.Minute)} {
		wf.mu.Lock()
		wf.status.Conn = review.Connection{State: review.ConnCircuitOpen, RetryAt: retry}
		wf.mu.Unlock()
		c.apply(c.refreshStrip)
		c.Settle()
		if txt := c.strip.conn.Text; strings.Contains(txt, "00:00") || strings.Contains(txt, clock(retry)) || !strings.Contains(txt, "trying again now") {
			t.Fatalf("retry at %v: %q", retry, txt)
		}
	}
	wf.mu.Lock()
	wf.status = review.Connectivity{Conn: review.Connection{State: review.ConnOffline}, Empty: true}
	wf.mu.Unlock()
	c.apply(c.refreshStrip)
	c.Settle()
	if txt := c.strip.conn.Text; strings.Contains(strings.ToLower(txt), "showing cached data") || !strings.Contains(txt, "nothing is cached yet") {
		t.Fatalf("offline on an empty cache: %q", txt)
	}
}

// The window's probe schedule, walked on an injected clock: the API is
// down for a while (long enough for any backoff to grow) and comes back
// at many different instants; the first probe after its return, which
// shows Online and flushes the outbox at once, comes within 5 s of it
// (it came 20-25 s late, and the flush 40-60 s after that). A rate
// limit's end and a queued action's not-before wake the probe, too.
func TestTheProbeSeesTheAPIComeBackWithinFiveSeconds(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	worst := time.Duration(0)
	for back := 30 * time.Second; back < 10*time.Minute; back += 7300 * time.Millisecond {
		now := t0
		for {
			state := review.ConnOffline
			if !now.Before(t0.Add(back)) {
				state = review.ConnOnline
			}
			if state == review.ConnOnline {
				worst = max(worst, now.Sub(t0.Add(back)))
				break
			}
			now = now.Add(probeAfter(review.Connectivity{Conn: review.Connection{State: state}}, now))
		}
	}
	t.Logf("Online at most %v after the API answers again", worst)
	if worst > 5*time.Second {
		t.Fatalf("the strip said Online %v after the API came back", worst)
	}
	online := review.Connectivity{Conn: review.Connection{State: review.ConnOnline}}
	if d := probeAfter(online, t0); d != probeIdle {
		t.Fatalf("online and idle: next probe in %v", d)
	}
	waiting := online
	waiting.Outbox = store.OutboxCount{Queued: 2, Waiting: 2, WaitUntil: t0.Add(7 * time.Second)}
	if d := probeAfter(waiting, t0); d < 7*time.Second || d > 8*time.Second {
		t.Fatalf("actions rate limited until +7 s: next probe in %v", d)
	}
	limited := online
	limited.RateLimitedUntil = t0.Add(40 * time.Second)
	if d := probeAfter(limited, t0); d < 40*time.Second || d > 41*time.Second {
		t.Fatalf("the API asked to wait 40 s: next probe in %v", d)
	}
}

// QueueAgain of the fake: a new action, done.
func (f *fakeWorkflow) QueueAgain(_ context.Context, id int64) (review.Result, error) {
	f.record("queue again")
	return review.Result{}, policy.Errorf(policy.CodeConflict, "the fake queues nothing again")
}

// A 503 ends the re-submission as failed, with the reason in words; the
// panel offers "Queue again", and one key press (q) sends a new intent
// with a new key.
func TestA503IsQueuedAgainWithOneKeyPress(t *testing.T) {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Reviewers: screenapi.DemoReviewers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ana := realService(t, srv, "demo-token-ana-0001", t.TempDir())
	ctx := context.Background()
	if _, err := ana.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPResubmit, Times: 1})
	first, err := ana.Actions.Resubmit(ctx, id)
	if err != nil || first.Action.State != policy.ActionFailed {
		t.Fatalf("after a 503: %+v %v", first.Action, err)
	}
	before, err := ana.Triage.Item(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	c := realConsole(t, ana)
	c.apply(func() { c.openItem(id, before.BatchID) })
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == id })
	var shown bool
	var label, message string
	c.apply(func() { shown, label, message = c.panel.requeue.Visible(), c.panel.requeue.Text, c.panel.message.Text })
	if !shown || !strings.Contains(label, "Queue again") || !strings.Contains(message, "unavailable for now") {
		t.Fatalf("the panel after a 503: button shown %v %q, message %q", shown, label, message)
	}
	cv := c.win.Canvas()
	c.apply(func() { test.TypeOnCanvas(cv, "q") })
	c.Settle2(t, func() bool {
		d, err := ana.Triage.Item(ctx, id)
		return err == nil && len(d.Actions) == 2 && !d.Actions[0].State.Open()
	})
	d, err := ana.Triage.Item(ctx, id)
	if err != nil || len(d.Actions) != 2 || d.Actions[0].State != policy.ActionDone || d.Actions[0].Key == first.Action.Key || srv.Analyses(id) != 1 {
		t.Fatalf("after q: %+v %v", d.Actions, err)
	}
}

// A bulk run in which the service turns one item away for now (503)
// offers "Queue again" for it in its result: a new plan on just that item,
// to confirm, with new keys.
func TestABulkResultOffersQueueAgainForWhatWasTurnedAway(t *testing.T) {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Reviewers: screenapi.DemoReviewers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ana := realService(t, srv, "demo-token-ana-0001", t.TempDir())
	ctx := context.Background()
	if _, err := ana.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ids := []string{srv.FindCode("CLASSIFIER_TIMEOUT"), srv.FindCode("INTERNAL_ERROR"), srv.FindCode("SOURCE_UNREACHABLE")}
	p, err := ana.Runs.PlanResubmit(ctx, review.Selection{IDs: ids})
	if err != nil || len(p.Items) != 3 {
		t.Fatalf("plan %+v %v", p, err)
	}
	c := realConsole(t, ana)
	var b *bulkScreen
	c.apply(func() { b = c.showBulk(ana.Runs, ana.Triage, p) })
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPResubmit, Times: 1})
	c.apply(b.onConfirm)
	waitEnded(t, b)
	var shown bool
	var label string
	c.apply(func() { shown, label = b.requeue.Visible(), b.requeue.Text })
	if !shown || label != "Queue again the 1 turned away" {
		t.Fatalf("the result's button: shown %v %q", shown, label)
	}
	c.apply(b.onQueueAgain)
	c.Settle()
	var texts []string
	c.apply(func() {
		if top := c.win.Canvas().Overlays().Top(); top != nil {
			for _, o := range test.LaidOutObjects(top) {
				if l, ok := asLabel(o); ok {
					texts = append(texts, l.Text)
				}
			}
		}
	})
	if all := strings.Join(texts, "\n"); !strings.Contains(all, "Re-submit 1 item") {
		t.Fatalf("Queue again did not plan the one turned away:\n%s", all)
	}
}

// failingFirstSync is a workflow whose first sync finds the API not
// answering in time.
type failingFirstSync struct {
	*fakeWorkflow
	failed bool
}

func (f *failingFirstSync) Sync(ctx context.Context, progress func(review.SyncProgress)) (review.SyncProgress, error) {
	f.mu.Lock()
	fail := !f.failed
	f.failed = true
	f.mu.Unlock()
	if fail {
		f.record("sync")
		return review.SyncProgress{}, &client.Error{Code: policy.CodeOutcomeUnknown, Class: client.ClassUnknown,
			Message: "the request was sent but no complete answer came back: timed out"}
	}
	return f.fakeWorkflow.Sync(ctx, progress)
}

// The first sync that fails on an empty cache says what happened in words
// (no OUTCOME_UNKNOWN), speaks of no cached data, and is tried again by
// itself once the API answers.
func TestAFailedFirstSyncOnAnEmptyCacheSaysSoAndTriesAgain(t *testing.T) {
	fake := &fakeWorkflow{status: review.Connectivity{Conn: review.Connection{State: review.ConnUnknown}, Empty: true}}
	wf := &failingFirstSync{fakeWorkflow: fake}
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	if txt := c.strip.conn.Text; strings.Contains(strings.ToLower(txt), "cached data") {
		t.Fatalf("an empty cache before any sync: %q", txt)
	}
	c.apply(c.onSync)
	c.Settle()
	var said, conn string
	c.apply(func() { said, conn = c.strip.pages.Text, c.strip.conn.Text })
	if strings.Contains(said, "OUTCOME_UNKNOWN") || strings.Contains(strings.ToLower(said+conn), "cached data") ||
		!strings.Contains(said, "did not answer in time") || !strings.Contains(said, "tries again by itself") {
		t.Fatalf("after the failed first sync: strip %q, connection %q", said, conn)
	}
	fake.mu.Lock()
	fake.probeErr = nil
	fake.mu.Unlock()
	if st := c.probe(context.Background()); st != review.ConnOnline {
		t.Fatalf("probe: %s", st)
	}
	c.Settle()
	if calls := strings.Join(fake.Calls(), ","); strings.Count(calls, "sync") != 2 {
		t.Fatalf("the first sync was not tried again: %s", calls)
	}
	c.apply(func() { said = c.strip.pages.Text })
	if !strings.HasPrefix(said, "Synced:") {
		t.Fatalf("after the retry: %q", said)
	}
}

// A flush that finds its actions refused names the items and why, in
// words, and the strip offers to show exactly them.
func TestAFlushNamesWhatWasRefusedAndWhyAndShowsThem(t *testing.T) {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Reviewers: screenapi.DemoReviewers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ana := realService(t, srv, "demo-token-ana-0001", t.TempDir())
	ctx := context.Background()
	if _, err := ana.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ids := []string{srv.FindCode("CLASSIFIER_TIMEOUT"), srv.FindCode("INTERNAL_ERROR")}
	srv.Refuse()
	for _, id := range ids {
		if res, err := ana.Actions.Resubmit(ctx, id); err != nil || res.Action.State != policy.ActionQueued {
			t.Fatalf("offline: %+v %v", res.Action, err)
		}
		srv.Touch(id, func(it *policy.RawItem) { it.Attempt++ }) // the service moved on meanwhile
	}
	srv.Accept()
	c := realConsole(t, ana)
	if st := c.probe(ctx); st != review.ConnOnline {
		t.Fatalf("probe: %s", st)
	}
	c.Settle()
	var said, link string
	var shown bool
	c.apply(func() { said, link, shown = c.strip.pages.Text, c.strip.refused.Text, c.strip.refused.Visible() })
	if !strings.Contains(said, "Sent 2 actions from the outbox: 2 refused") || !strings.Contains(said, "the item changed") ||
		!strings.Contains(said, ids[0]) || !strings.Contains(said, ids[1]) || strings.Contains(said, "ITEM_CHANGED") {
		t.Fatalf("the strip says %q", said)
	}
	t.Logf("the strip says: %s", said)
	if !shown || link != "Show the 2 refused" {
		t.Fatalf("the link: shown %v %q", shown, link)
	}
	c.apply(c.onRefused)
	c.Settle2(t, func() bool { return len(c.items.rows) == 2 })
	var got []string
	c.apply(func() {
		for _, r := range c.items.rows {
			got = append(got, r.ID)
		}
	})
	if !slices.Contains(got, ids[0]) || !slices.Contains(got, ids[1]) {
		t.Fatalf("shown %v, want %v", got, ids)
	}
}

// The panel of a rate-limited action says when it goes out.
func TestThePanelSaysWhenARateLimitedActionGoesOut(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "CLASSIFIER_TIMEOUT")}}
	wf.setAction("a", policy.ActionResubmit, policy.ActionQueued, policy.CodeRateLimited)
	until := time.Now().Add(time.Hour)
	wf.mu.Lock()
	wf.items[0].Action.NotBefore = until
	wf.mu.Unlock()
	c := newTestConsole(t, wf)
	c.Settle2(t, func() bool { return c.panel.ready() && c.panel.itemID == "a" })
	var msg string
	c.apply(func() { msg = c.panel.message.Text })
	if !strings.Contains(msg, "goes out by itself at "+clock(until)) || strings.Contains(msg, "when the API answers again") {
		t.Fatalf("the panel says %q", msg)
	}
}
