package ui

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// deskClock is a Clock whose time moves only when the test says; armed
// receives each timer's deadline as it is set.
type deskClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []fakeWait
	armed chan time.Time
}

type fakeWait struct {
	at time.Time
	ch chan time.Time
}

func newDeskClock(now time.Time) *deskClock {
	return &deskClock{now: now, armed: make(chan time.Time, 100)}
}

func (f *deskClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *deskClock) After(d time.Duration) (<-chan time.Time, func()) {
	f.mu.Lock()
	ch := make(chan time.Time, 1)
	at := f.now.Add(d)
	f.waits = append(f.waits, fakeWait{at: at, ch: ch})
	f.mu.Unlock()
	f.armed <- at
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.waits = slices.DeleteFunc(f.waits, func(w fakeWait) bool { return w.ch == ch })
	}
}

// advance moves the time on and fires the timers it passed.
func (f *deskClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	f.waits = slices.DeleteFunc(f.waits, func(w fakeWait) bool {
		if w.at.After(f.now) {
			return false
		}
		w.ch <- f.now
		return true
	})
}

// nextArmed waits for the next timer set, and returns its deadline.
func (f *deskClock) nextArmed(t *testing.T) time.Time {
	t.Helper()
	select {
	case at := <-f.armed:
		return at
	case <-time.After(60 * time.Second):
		t.Fatal("no timer was set")
	}
	return time.Time{}
}

// armedAt waits for a timer set at want; one set later fails (timers
// set earlier are the plans before the last change).
func (f *deskClock) armedAt(t *testing.T, want time.Time) {
	t.Helper()
	for {
		at := f.nextArmed(t)
		if at.Equal(want) {
			return
		}
		if at.After(want) {
			t.Fatalf("planned at %v, want %v", at, want)
		}
	}
}

// waitCall waits until the fake workflow is called with want, failing on
// any call in fail.
func waitCall(t *testing.T, ch chan string, want string, fail ...string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case got := <-ch:
			if got == want {
				return
			}
			if slices.Contains(fail, got) {
				t.Fatalf("called %q while waiting for %q", got, want)
			}
		case <-deadline:
			t.Fatalf("no call %q", want)
		}
	}
}

func TestNextSync(t *testing.T) {
	last := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(m, s int) time.Time { return last.Add(time.Duration(m)*time.Minute + time.Duration(s)*time.Second) }
	online := review.Connectivity{Conn: review.Connection{State: review.ConnOnline}}
	open := func(retry time.Time) review.Connectivity {
		return review.Connectivity{Conn: review.Connection{State: review.ConnCircuitOpen, RetryAt: retry}}
	}
	limited := func(until time.Time) review.Connectivity {
		return review.Connectivity{Conn: review.Connection{State: review.ConnOnline}, RateLimitedUntil: until}
	}
	both := open(at(8, 0))
	both.RateLimitedUntil = at(12, 0)
	for _, tc := range []struct {
		name   string
		jitter time.Duration
		st     review.Connectivity
		due    time.Time
		paused string
	}{
		{"online: the interval from the last end", 0, online, at(5, 0), ""},
		{"jitter later", 20 * time.Second, online, at(5, 20), ""},
		{"jitter sooner", -30 * time.Second, online, at(4, 30), ""},
		{"offline: as usual (the sync says why it fails)", 0, review.Connectivity{Conn: review.Connection{State: review.ConnOffline}}, at(5, 0), ""},
		{"breaker open past the interval: at its retry", 0, open(at(8, 0)), at(8, 0).Add(probeLate), syncPausedCircuit},
		{"breaker open, retry before the interval: no pause", 0, open(at(3, 0)), at(5, 0), ""},
		{"breaker open without a retry time", 0, open(time.Time{}), at(5, 0), ""},
		{"Retry-After past the interval: at its end", 0, limited(at(30, 0)), at(30, 0).Add(probeLate), syncPausedRateLimit},
		{"Retry-After ended before: no pause", 0, limited(at(1, 0)), at(5, 0), ""},
		{"both: the later", 0, both, at(12, 0).Add(probeLate), syncPausedRateLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			due, paused := nextSync(5*time.Minute, tc.jitter, last, tc.st)
			if !due.Equal(tc.due) || paused != tc.paused {
				t.Fatalf("got %v %q, want %v %q", due.Format(time.TimeOnly), paused, tc.due.Format(time.TimeOnly), tc.paused)
			}
		})
	}
	// The jitter: plus or minus a tenth of the interval, ends included.
	every := 5 * time.Minute
	for _, tc := range []struct {
		draw func(int64) int64
		want time.Duration
	}{
		{func(int64) int64 { return 0 }, -30 * time.Second},
		{func(n int64) int64 { return n - 1 }, 30 * time.Second},
		{func(n int64) int64 { return n / 2 }, 0},
	} {
		if got := syncJitter(every, tc.draw); got != tc.want {
			t.Errorf("jitter %v, want %v", got, tc.want)
		}
	}
}

// deskConsole is a console on a fake clock, with a zero jitter and the
// workflow's calls on a channel.
func deskConsole(t *testing.T, wf *fakeWorkflow, opts Options) (*Console, *deskClock) {
	t.Helper()
	clk := newDeskClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local))
	opts.Clock = clk
	opts.Now = clk.Now
	opts.SyncEvery = 5 * time.Minute
	c := newTestConsoleWith(t, wf, opts)
	c.closeWindow = c.Close // as closing the window does, without closing the test's twice
	c.sched.mu.Lock()
	c.sched.draw = func(n int64) int64 { return n / 2 }
	c.sched.jitter = 0
	c.sched.mu.Unlock()
	return c, clk
}

// The background sync runs on its interval from the last sync's end,
// never beside a sync under way, waits while the breaker is open and goes
// on by itself when it closes; the strip says when the next one is due.
func TestBackgroundSyncOnItsSchedule(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}, entered: make(chan string, 1000)}
	wf.status.Conn.State = review.ConnOnline
	wf.status.LastSync = time.Now()
	c, clk := deskConsole(t, wf, Options{})
	start := clk.Now()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.syncOnSchedule(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	if at := clk.nextArmed(t); !at.Equal(start.Add(5 * time.Minute)) {
		t.Fatalf("first sync planned at %v", at)
	}
	c.apply(c.refreshStrip)
	c.Settle()
	if want := "next sync " + clock(start.Add(5*time.Minute)); !strings.Contains(c.strip.synced.Text, want) {
		t.Fatalf("strip %q, want %q", c.strip.synced.Text, want)
	}
	clk.advance(4*time.Minute + 59*time.Second)
	// Not yet: one second to go. A manual sync now moves the schedule.
	gate := make(chan struct{})
	wf.mu.Lock()
	wf.syncGate = gate
	wf.mu.Unlock()
	c.apply(c.onSync) // F5
	waitCall(t, wf.entered, "sync")
	// While it runs, time passes: nothing more is started.
	clk.advance(10 * time.Minute)
	if w := c.sched.syncWords(review.Connectivity{}); w != "" {
		t.Fatalf("a next sync is shown while one runs: %q", w)
	}
	close(gate)
	ended := clk.Now()
	// The next counts from that sync's end.
	clk.armedAt(t, ended.Add(5*time.Minute))
	c.Settle()
	if n := strings.Count(strings.Join(wf.Calls(), ","), "sync"); n != 1 {
		t.Fatalf("%d syncs, want the one F5 started: %v", n, wf.Calls())
	}
	// The breaker opens until 20 minutes from now: the sync waits for it.
	retry := clk.Now().Add(20 * time.Minute)
	wf.mu.Lock()
	wf.syncGate = nil
	wf.status.Conn = review.Connection{State: review.ConnCircuitOpen, RetryAt: retry}
	wf.mu.Unlock()
	clk.advance(5 * time.Minute)
	clk.armedAt(t, retry.Add(probeLate))
	c.apply(c.refreshStrip)
	c.Settle()
	if want := "sync paused until " + clock(retry.Add(probeLate)) + ": " + syncPausedCircuit; !strings.Contains(c.strip.synced.Text, want) {
		t.Fatalf("strip %q, want %q", c.strip.synced.Text, want)
	}
	if slices.Contains(wf.Calls()[1:], "sync") {
		t.Fatalf("synced while the breaker was open: %v", wf.Calls())
	}
	// The breaker's pause ends: the sync goes by itself.
	wf.mu.Lock()
	wf.status.Conn = review.Connection{State: review.ConnOffline}
	wf.mu.Unlock()
	clk.advance(20*time.Minute + probeLate)
	waitCall(t, wf.entered, "sync")
	c.Settle()
}

// Notifications: at most one a minute, the rest said together in the
// next; none when turned off.
func TestNotificationsAtMostOneAMinute(t *testing.T) {
	clk := newDeskClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	sent := make(chan string, 10)
	on := true
	var mu sync.Mutex
	n := newNotifier(context.Background(), clk, func(n *fyne.Notification) { sent <- n.Content }, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return on
	})
	got := func() string {
		t.Helper()
		select {
		case s := <-sent:
			return s
		case <-time.After(60 * time.Second):
			t.Fatal("no notification")
		}
		return ""
	}
	none := func() {
		t.Helper()
		select {
		case s := <-sent:
			t.Fatalf("notification %q too soon", s)
		default:
		}
	}
	n.post("5 new items need you in CUST-7049")
	if s := got(); s != "5 new items need you in CUST-7049" {
		t.Fatalf("first: %q", s)
	}
	clk.advance(10 * time.Second)
	n.post("Re-submission of a: outcome unknown")
	if at := clk.nextArmed(t); !at.Equal(clk.Now().Add(50 * time.Second)) {
		t.Fatalf("held until %v", at)
	}
	n.post("1 new item needs you in CUST-7050")
	clk.advance(49 * time.Second)
	none()
	clk.advance(time.Second)
	if s := got(); s != "Re-submission of a: outcome unknown\n1 new item needs you in CUST-7050" {
		t.Fatalf("coalesced: %q", s)
	}
	// A minute later, one goes at once again.
	clk.advance(time.Minute)
	n.post("x")
	if s := got(); s != "x" {
		t.Fatalf("after a minute: %q", s)
	}
	// Off: nothing, not even later.
	mu.Lock()
	on = false
	mu.Unlock()
	clk.advance(2 * time.Minute)
	n.post("y")
	none()
}

// A sync that brings items that need her says so by customer, as a
// notification and in the strip; a setting turns the notification off,
// and REVIEWER_NOTIFY=off too (the strip still says it).
func TestASyncWithNewWorkNotifies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pref   string
		envOff bool
		want   bool
	}{{"on", "", false, true}, {"off in Preferences", "off", false, false}, {"off by the environment", "", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			old := scoredItem("s", 10, policy.RecommendForward)
			wf := &fakeWorkflow{items: []review.ItemView{old}}
			wf.status.LastSync = time.Now()
			wf.afterSync = []review.ItemView{old,
				inBatch(errorItem("n1", "DECODE_FAILED"), "bat_49", "CUST-7049"),
				inBatch(errorItem("n2", "CLASSIFIER_TIMEOUT"), "bat_49", "CUST-7049")}
			sent := make(chan string, 10)
			c, _ := deskConsole(t, wf, Options{NotifyOff: tc.envOff, Notify: func(n *fyne.Notification) { sent <- n.Content }})
			if tc.pref != "" {
				c.settings.store().SetString(prefNotify, tc.pref)
			}
			c.apply(c.onSync)
			c.Settle()
			const line = "2 new items need you in CUST-7049"
			if c.strip.news.Text != line+": show them" || !c.strip.news.Visible() {
				t.Fatalf("strip's link %q", c.strip.news.Text)
			}
			select {
			case s := <-sent:
				if !tc.want || s != line {
					t.Fatalf("notification %q (want one: %v)", s, tc.want)
				}
			default:
				if tc.want {
					t.Fatal("no notification")
				}
			}
		})
	}
}

func TestActionEndLines(t *testing.T) {
	if s := actionEndLine(policy.ActionResubmit, "it_1", policy.ActionUnknown, ""); !strings.Contains(s, "it_1: outcome unknown") {
		t.Errorf("unknown: %q", s)
	}
	if s := actionEndLine(policy.ActionFileRequest, "it_2", policy.ActionFailed, "ITEM_NOT_RETRYABLE"); !strings.Contains(s, "it_2: refused by the service (ITEM_NOT_RETRYABLE)") {
		t.Errorf("failed: %q", s)
	}
	for _, st := range []policy.ActionState{policy.ActionDone, policy.ActionQueued} {
		if s := actionEndLine(policy.ActionResubmit, "it_3", st, ""); s != "" {
			t.Errorf("%s: %q", st, s)
		}
	}
	if s := flushEndLine(review.FlushResult{Done: 3, Unknown: 1, Failed: 2}); !strings.Contains(s, "3 actions did not go through: 1 ended unknown") || !strings.Contains(s, "2 refused") {
		t.Errorf("flush: %q", s)
	}
	if s := runEndLine(review.RunProgress{Total: 9, Done: 7, Unknown: 2}); s != "Bulk action: 2 actions did not go through: 2 ended unknown (checked later with the same key)" {
		t.Errorf("run: %q", s)
	}
	if s := flushEndLine(review.FlushResult{Done: 3}); s != "" {
		t.Errorf("flush done: %q", s)
	}
}

// fakeTray records the tray's menus.
type fakeTray struct {
	mu    sync.Mutex
	menus []*fyne.Menu
	icon  fyne.Resource
}

func (f *fakeTray) SetSystemTrayMenu(m *fyne.Menu) {
	f.mu.Lock()
	f.menus = append(f.menus, m)
	f.mu.Unlock()
}
func (f *fakeTray) SetSystemTrayIcon(r fyne.Resource) { f.icon = r }

func (f *fakeTray) last() (*fyne.Menu, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.menus[len(f.menus)-1], len(f.menus)
}

func labels(m *fyne.Menu) []string {
	var out []string
	for _, it := range m.Items {
		if it.IsSeparator {
			out = append(out, "—")
			continue
		}
		out = append(out, it.Label)
	}
	return out
}

func item(t *testing.T, m *fyne.Menu, label string) *fyne.MenuItem {
	t.Helper()
	for _, it := range m.Items {
		if it.Label == label {
			return it
		}
	}
	t.Fatalf("no %q in %v", label, labels(m))
	return nil
}

// The tray's menu says the counts and the connection, is set again when
// they change (and only then), and its Sync now, Flush outbox and Quit
// work; Quit with unsent work asks first and says how many.
func TestTrayMenu(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED"), errorItem("b", "CLASSIFIER_TIMEOUT"),
		scoredItem("s", 10, policy.RecommendForward)}, entered: make(chan string, 1000)}
	wf.status.Conn.State = review.ConnOnline
	wf.status.LastSync = time.Now()
	ft := &fakeTray{}
	c, _ := deskConsole(t, wf, Options{Tray: ft})
	c.apply(c.reload)
	c.Settle()
	m, sets := ft.last()
	want := []string{"Needs my action: 2", "Outbox: outbox empty", "● Online", "—", "Show", "Sync now", "Flush outbox", "—", "Quit"}
	if !slices.Equal(labels(m), want) {
		t.Fatalf("menu %q, want %q", labels(m), want)
	}
	for _, l := range want[:3] {
		if !item(t, m, l).Disabled {
			t.Errorf("%q can be clicked", l)
		}
	}
	if !item(t, m, "Quit").IsQuit {
		t.Error("Quit is not the menu's quit: Fyne would add its own, which does not ask")
	}
	// Nothing changed: the menu is not set again.
	c.apply(c.reload)
	c.Settle()
	if _, n := ft.last(); n != sets {
		t.Fatalf("the menu was set again (%d → %d) with nothing changed", sets, n)
	}
	// An action queued offline: the outbox and the connection change.
	wf.setAction("a", policy.ActionResubmit, policy.ActionQueued, policy.CodeAPIUnreachable)
	wf.mu.Lock()
	wf.status.Conn.State = review.ConnOffline
	wf.status.Outbox = store.OutboxCount{Queued: 2, Unknown: 1, Notes: 1}
	wf.mu.Unlock()
	c.apply(c.reload)
	c.Settle()
	m, _ = ft.last()
	want = []string{"Needs my action: 1", "Outbox: 2 queued · 1 unknown · 1 note to send", "● Offline: showing cached data"}
	if !slices.Equal(labels(m)[:3], want) {
		t.Fatalf("menu %q, want %q", labels(m)[:3], want)
	}
	item(t, m, "Sync now").Action()
	waitCall(t, wf.entered, "sync")
	c.Settle()
	item(t, m, "Flush outbox").Action()
	waitCall(t, wf.entered, "flush")
	c.Settle()
	// Quit asks, naming what waits; Stay keeps the window.
	wf.mu.Lock()
	wf.status.Outbox = store.OutboxCount{Queued: 2, Unknown: 1, Notes: 1}
	wf.mu.Unlock()
	item(t, m, "Quit").Action()
	c.Settle()
	if c.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Quit with unsent work did not ask")
	}
	if txt := dialogTexts(c); !strings.Contains(txt, "2 queued actions, 1 action of unknown outcome and 1 note not sent yet.") {
		t.Fatalf("the question: %q", txt)
	}
	key(c)(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if c.ctx.Err() != nil || c.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Stay did not stay")
	}
	item(t, m, "Quit").Action()
	c.Settle()
	key(c)(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if c.ctx.Err() == nil {
		t.Fatal("Quit (Enter) did not close the window")
	}
}

// With nothing unsent, Quit quits without a question.
func TestQuitWithNothingUnsentQuits(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}
	c, _ := deskConsole(t, wf, Options{})
	c.apply(c.onQuit)
	c.Settle()
	if c.ctx.Err() == nil {
		t.Fatal("the window is still open")
	}
}

func TestUnsentWords(t *testing.T) {
	for _, tc := range []struct {
		o    store.OutboxCount
		want string
	}{
		{store.OutboxCount{}, ""},
		{store.OutboxCount{Queued: 1}, "1 queued action"},
		{store.OutboxCount{Sending: 2, Notes: 1}, "2 actions being sent and 1 note"},
		{store.OutboxCount{Queued: 3, Sending: 1, Unknown: 2, Notes: 4}, "3 queued actions, 1 action being sent, 2 actions of unknown outcome and 4 notes"},
	} {
		if got := unsentWords(tc.o); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.o, got, tc.want)
		}
	}
}

// The window reopens as she left it: its size, the panel's width, the
// batch and the filters.
func TestTheWindowReopensAsSheLeftIt(t *testing.T) {
	wf := twoBatches()
	c, _ := deskConsole(t, wf, Options{})
	prefs := c.settings.store()
	if got := keptWindowSize(prefs); got != defaultWindowSize {
		t.Fatalf("first start: %v", got)
	}
	c.apply(func() { c.batches.list.Select(c.batches.index("bat_43")) })
	c.Settle()
	c.apply(func() {
		c.items.needs.SetChecked(true)
		c.items.status.SetSelectedIndex(2) // errors
		c.right.Offset = 0.6
		c.win.Resize(fyne.NewSize(1100, 700))
	})
	c.Settle()
	c.apply(func() { c.keepWindowState() })

	w := test.NewTempWindow(t, nil)
	w.Resize(keptWindowSize(prefs))
	if sz := w.Canvas().Size(); sz.Width != 1100 || sz.Height != 700 {
		t.Fatalf("size %v", sz)
	}
	c2 := NewConsole(w, workflowOf(wf), Options{Prefs: prefs})
	t.Cleanup(c2.Close)
	c2.apply(c2.reload)
	c2.Settle()
	if c2.right.Offset != 0.6 {
		t.Errorf("panel offset %v", c2.right.Offset)
	}
	if c2.batches.batchID() != "bat_43" || !c2.items.needs.Checked || c2.items.status.SelectedIndex() != 2 {
		t.Fatalf("batch %q needs %v status %d", c2.batches.batchID(), c2.items.needs.Checked, c2.items.status.SelectedIndex())
	}
	if f := wf.filters[len(wf.filters)-1]; f.BatchID != "bat_43" || !f.NeedsAction || f.Status != policy.StatusError {
		t.Fatalf("the first read: %+v", f)
	}

	// A batch gone from the list: the newest, as at a first start; all
	// batches stay all batches.
	prefs.SetString(prefLastView, `{"batch_id":"bat_gone"}`)
	c3 := NewConsole(test.NewTempWindow(t, nil), workflowOf(wf), Options{Prefs: prefs})
	t.Cleanup(c3.Close)
	c3.apply(c3.reload)
	c3.Settle()
	if c3.batches.batchID() != "bat_48" {
		t.Fatalf("gone batch: opened %q", c3.batches.batchID())
	}
	c3.apply(func() { c3.batches.all.SetChecked(true) })
	c3.Settle()
	c3.apply(func() { c3.keepWindowState() })
	c4 := NewConsole(test.NewTempWindow(t, nil), workflowOf(wf), Options{Prefs: prefs})
	t.Cleanup(c4.Close)
	c4.apply(c4.reload)
	c4.Settle()
	if c4.batches.batchID() != "" || !c4.batches.all.Checked {
		t.Fatalf("all batches: %q", c4.batches.batchID())
	}
}

// The state is kept as she works, not only when she quits: a window that
// is killed reopens on the batch and filters of its last reload.
func TestTheWindowStateIsKeptWithoutAQuit(t *testing.T) {
	wf := twoBatches()
	c, _ := deskConsole(t, wf, Options{})
	prefs := c.settings.store()
	c.apply(func() { c.batches.list.Select(c.batches.index("bat_43")) })
	c.Settle()
	c.apply(func() {
		c.items.status.SetSelectedIndex(2) // errors
		c.win.Resize(fyne.NewSize(1100, 700))
	})
	c.Settle()
	c.apply(c.reload) // what the next sync does
	c.Settle()
	if got := keptWindowSize(prefs); got != fyne.NewSize(1100, 700) {
		t.Fatalf("size kept %v", got)
	}
	c2 := NewConsole(test.NewTempWindow(t, nil), workflowOf(wf), Options{Prefs: prefs})
	t.Cleanup(c2.Close)
	c2.apply(c2.reload)
	c2.Settle()
	if c2.batches.batchID() != "bat_43" || c2.items.status.SelectedIndex() != 2 {
		t.Fatalf("reopened on %q, status %d", c2.batches.batchID(), c2.items.status.SelectedIndex())
	}
}

// Closing the window hides it to the tray only when she chose so and
// there is a tray; otherwise it quits, asking first when something waits.
func TestClosingHidesToTheTrayOnlyWhenChosen(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tray, pref bool
		hidden     bool
	}{{"no tray, chosen before", false, true, false}, {"tray, not chosen", true, false, false}, {"tray, chosen", true, true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}
			wf.status.Outbox = store.OutboxCount{Queued: 1}
			opts := Options{}
			if tc.tray {
				opts.Tray = &fakeTray{}
			}
			c, _ := deskConsole(t, wf, opts)
			if tc.pref {
				c.settings.store().SetString(prefHideToTray, "on")
			}
			c.apply(func() { c.win.Show() })
			sc := &screens{win: c.win, c: c}
			c.apply(sc.onClose)
			c.Settle()
			asked := c.win.Canvas().Overlays().Top() != nil
			if tc.hidden && (asked || c.ctx.Err() != nil) {
				t.Fatalf("hid nothing: asked %v, closed %v", asked, c.ctx.Err() != nil)
			}
			if !tc.hidden && !asked {
				t.Fatal("closing with a queued action did not ask")
			}
		})
	}
}

// Quit's question is in the number of what waits: one queued action
// "stays", and only an unknown outcome is said to be checked with its key.
func TestQuitQuestionSpeaksInTheNumberOfWhatWaits(t *testing.T) {
	one := store.OutboxCount{Queued: 1}
	if got := quitQuestion(one, unsentWords(one)); got != "1 queued action not sent yet. It stays in the cache and goes out the next time the console runs (or with reviewer flush)." {
		t.Errorf("one: %q", got)
	}
	more := store.OutboxCount{Queued: 2, Unknown: 1}
	if got := quitQuestion(more, unsentWords(more)); !strings.Contains(got, "They stay") || !strings.Contains(got, "checked then with its key") {
		t.Errorf("more: %q", got)
	}
}
