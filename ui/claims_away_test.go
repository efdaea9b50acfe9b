package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// awayClock is the console's clock (Options.Now) in a test that moves
// time: the away time is counted on it, the timers fire by fakeTimers.
type awayClock struct {
	mu sync.Mutex
	t  time.Time
}

func (k *awayClock) now() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.t
}

func (k *awayClock) add(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.t = k.t.Add(d)
}

// newAwayConsole is a claims console (newClaimsConsole) on a clock the
// test moves, with the documents docs (nil: the workflow's).
func newAwayConsole(t *testing.T, wf any, clk *awayClock, docs Documents) (*Console, *fakeTimers) {
	t.Helper()
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	opts := Options{Prefs: a.Preferences(), Now: clk.now}
	if docs != nil {
		opts.Documents = docs
	}
	c := NewConsole(w, workflowOf(wf), opts)
	ft := &fakeTimers{c: c}
	c.panel.team.after = ft.after
	c.apply(c.reload)
	c.Settle()
	return c, ft
}

// awayScene is a claims console on two items that need her (first a
// retryable error, then one that needs a new file), on a clock the test
// moves, with the documents docs (nil: the workflow's).
func awayScene(t *testing.T, first, second string, docs Documents) (*Console, *fakeTimers, *awayClock, *teamFake) {
	t.Helper()
	clk := &awayClock{t: time.Now()}
	wf := newTeamFake(errorItem(first, "CLASSIFIER_TIMEOUT"), errorItem(second, "DECODE_FAILED"))
	wf.now = clk.now
	c, ft := newAwayConsole(t, wf, clk, docs)
	return c, ft, clk, wf
}

// later lets d pass on the clock, then fires the timers of length d.
func later(clk *awayClock, ft *fakeTimers, d time.Duration) int {
	clk.add(d)
	return ft.fire(d)
}

// nudgeKey is a key that reaches the console and does nothing there.
func nudgeKey(c *Console) {
	c.apply(func() { key(c)(&fyne.KeyEvent{Name: fyne.KeyLeft}) })
	c.Settle()
}

// A claim taken by starting work on an item is renewed while she is
// there, and let go at the first renewal after the away time with none of
// her input: a window left open over lunch does not keep the item. The
// panel says so plainly; nothing is taken while she is still away, nor
// when she comes back: she takes it again by starting work on it.
func TestAClaimIsLetGoWhenSheIsAway(t *testing.T) {
	c, ft, clk, wf := awayScene(t, "itm_1", "itm_2", nil)
	v := c.panel.team
	c.apply(func() { c.items.move(1) }) // her move
	c.Settle()
	if n := startWork(c); n != 1 || !contains(wf.Calls(), "claim itm_2") {
		t.Fatalf("work: %d, calls %v", n, wf.Calls())
	}
	// Half the claim's length with no input: renewed, she may be reading.
	if n := later(clk, ft, v.renewAfterFor("itm_2")); n != 1 || len(callsWith(wf, "claim itm_2")) != 2 {
		t.Fatalf("first renewal: %d fired, calls %v", n, wf.Calls())
	}
	// The away time with no input: the renewal lets it go instead.
	if n := later(clk, ft, v.renewAfterFor("itm_2")); n != 1 {
		t.Fatalf("second renewal: %d fired", n)
	}
	if got := wf.Calls(); len(callsWith(wf, "claim itm_2")) != 2 || !contains(got, "release itm_2") || v.held["itm_2"] != nil {
		t.Fatalf("after 15 min away the claim was kept: calls %v", got)
	}
	if got := v.claim.Text; got != "Let go after 15 min away; act on it to take it again." {
		t.Fatalf("claim line %q", got)
	}
	if wf.setClaim("itm_2", nil).ID == "" || ft.live() != 0 {
		t.Fatalf("%d timers still set", ft.live())
	}
	// Still away: a reload of the window (a sync) takes nothing.
	clk.add(time.Hour)
	c.apply(c.reload)
	c.Settle()
	if got := callsWith(wf, "claim"); len(got) != 2 {
		t.Fatalf("a reload while she is away claimed: %v", got)
	}
	// She comes back: nothing is claimed until she starts work again.
	nudgeKey(c)
	ft.fireAll()
	if got := callsWith(wf, "claim"); len(got) != 2 || ft.live() != 0 {
		t.Fatalf("coming back: calls %v, %d timers", got, ft.live())
	}
	if n := startWork(c); n != 1 || len(callsWith(wf, "claim itm_2")) != 3 || v.held["itm_2"] == nil {
		t.Fatalf("work after coming back: %d, calls %v", n, wf.Calls())
	}
	if !strings.HasPrefix(v.claim.Text, "You are on this until") {
		t.Fatalf("claim line %q", v.claim.Text)
	}
}

// Her input keeps the claim: renewed for as long as she gives the window
// keys, letters or row clicks, whatever the time; the away time counts from
// her last input, and the first renewal after it lets the claim go.
func TestHerInputKeepsRenewingTheClaim(t *testing.T) {
	c, ft, clk, wf := awayScene(t, "itm_1", "itm_2", nil)
	v := c.panel.team
	c.apply(func() { c.items.move(1) })
	c.Settle()
	startWork(c)
	inputs := []func(){
		func() { nudgeKey(c) },
		func() { c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "z") }); c.Settle() },
		// A click on another cell of her row (Table.Tapped selects it).
		func() { c.apply(func() { c.items.table.Select(widget.TableCellID{Row: 1, Col: 1}) }); c.Settle() },
		func() { nudgeKey(c) },
	}
	for i, input := range inputs { // an hour with her at the window
		d := v.renewAfterFor("itm_2")
		clk.add(d / 2)
		input()
		clk.add(d - d/2)
		if n := ft.fire(d); n != 1 || len(callsWith(wf, "claim itm_2")) != i+2 || contains(wf.Calls(), "release itm_2") {
			t.Fatalf("renewal %d with her input: %d fired, calls %v", i+1, n, wf.Calls())
		}
	}
	// She leaves after her last input, half way to the last renewal: renewed
	// 3.75 and 11.25 min after it, let go at 18.75 min, the first renewal
	// after the away time.
	for v.held["itm_2"] != nil && len(callsWith(wf, "claim itm_2")) < 20 {
		later(clk, ft, v.renewAfterFor("itm_2"))
	}
	if got := callsWith(wf, "claim itm_2"); len(got) != 1+len(inputs)+1 || !contains(wf.Calls(), "release itm_2") {
		t.Fatalf("after her last input: %d claims, calls %v", len(got), wf.Calls())
	}
}

// What the window does by itself is not her input: a sync that takes the
// item she was on out of the list moves the window to another row, and
// that row is not claimed while she is away. A click on a row is her
// input: she is back, and takes the item again by starting work on it.
func TestAMoveTheWindowMakesIsNotHerInput(t *testing.T) {
	c, ft, clk, wf := awayScene(t, "itm_1", "itm_2", nil)
	v := c.panel.team
	c.apply(func() { c.items.move(1) })
	c.Settle()
	startWork(c)
	for v.held["itm_2"] != nil && len(callsWith(wf, "claim")) < 10 {
		later(clk, ft, v.renewAfterFor("itm_2"))
	}
	if !contains(wf.Calls(), "release itm_2") {
		t.Fatalf("away: %v", wf.Calls())
	}
	// Another reviewer dealt with itm_2: the next sync drops it.
	wf.mu.Lock()
	wf.items = wf.items[:1]
	wf.mu.Unlock()
	c.apply(c.reload)
	c.Settle()
	if c.panel.itemID != "itm_1" {
		t.Fatalf("the window shows %q", c.panel.itemID)
	}
	ft.fireAll()
	if got := callsWith(wf, "claim itm_1"); len(got) != 0 {
		t.Fatalf("a row the window moved to while she was away was claimed: %v", wf.Calls())
	}
	// She clicks her row: back, and the item is hers once she starts work.
	c.apply(func() { c.items.table.Select(widget.TableCellID{Row: 0, Col: 1}) })
	c.Settle()
	ft.fireAll()
	if len(callsWith(wf, "claim itm_1")) != 0 || ft.live() != 0 {
		t.Fatalf("the click: calls %v, %d timers", wf.Calls(), ft.live())
	}
	if n := startWork(c); n != 1 || !contains(wf.Calls(), "claim itm_1") {
		t.Fatalf("work after the click: %d, calls %v", n, wf.Calls())
	}
}

// A claim kept for her open action (queued, unknown) stays hers when she is
// away, renewed until the action ends; the claim she holds by looking at
// another item is let go at the same time.
func TestAnOpenActionKeepsItsClaimWhenSheIsAway(t *testing.T) {
	c, ft, clk, wf := awayScene(t, "itm_1", "itm_2", nil)
	v := c.panel.team
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "r"); key(c)(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	c.Settle()
	if got := wf.Calls(); !contains(got, "claim itm_1") || !contains(got, "resubmit itm_1") || c.panel.itemID != "itm_2" {
		t.Fatalf("acting: %v, on %q", got, c.panel.itemID)
	}
	startWork(c) // she starts work on itm_2, then leaves
	if !contains(wf.Calls(), "claim itm_2") {
		t.Fatalf("work on itm_2: %v", wf.Calls())
	}
	// Both claims were taken at the same instant: their renewals are due
	// together, and fire together.
	if a, b := v.renewAfterFor("itm_1"), v.renewAfterFor("itm_2"); a != b {
		t.Fatalf("renewals due after %v and %v", a, b)
	}
	later(clk, ft, v.renewAfterFor("itm_1"))
	wf.setAction("itm_1", policy.ActionResubmit, policy.ActionUnknown, "")
	if n := later(clk, ft, v.renewAfterFor("itm_1")); n != 2 {
		t.Fatalf("second renewals: %d fired", n)
	}
	got := wf.Calls()
	if !contains(got, "release itm_2") || v.held["itm_2"] != nil {
		t.Fatalf("the claim held by looking was kept while she was away: %v", got)
	}
	if contains(got, "release itm_1") || v.held["itm_1"] == nil || len(callsWith(wf, "claim itm_1")) != 3 {
		t.Fatalf("the claim of her open action was let go while she was away: %v", got)
	}
	// It stays hers, renewed, as long as the action is open.
	clk.add(time.Hour)
	if n := ft.fire(v.renewAfterFor("itm_1")); n != 1 || len(callsWith(wf, "claim itm_1")) != 4 || contains(wf.Calls(), "release itm_1") {
		t.Fatalf("an hour away: %d fired, calls %v", n, wf.Calls())
	}
}

// The window out of the foreground for the away time counts as away, even
// with some input meanwhile (the wheel reaches a window in the background);
// coming back to the foreground is her input, and claims nothing by itself.
// The window's lifecycle hooks are composed: coming back still looks at
// the cache.
func TestOutOfTheForegroundCountsAsAway(t *testing.T) {
	c, ft, clk, wf := awayScene(t, "itm_0", "itm_1", twoVersions(t))
	v := c.panel.team
	hooks := watchedForeground(c)
	c.apply(func() { c.items.move(1) })
	c.Settle()
	if n := startWork(c); n != 1 || !contains(wf.Calls(), "claim itm_1") {
		t.Fatalf("work: %d, calls %v", n, wf.Calls())
	}
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	vw := c.viewer
	if vw == nil || len(vw.sides) == 0 {
		t.Fatal("the viewer did not open")
	}
	hooks.OnExitedForeground()()
	clk.add(8 * time.Minute)
	c.apply(func() { vw.sides[0].area.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 10}}) })
	if n := ft.fire(v.renewAfterFor("itm_1")); n != 1 || len(callsWith(wf, "claim itm_1")) != 2 {
		t.Fatalf("8 min out of the foreground: %d fired, calls %v", n, wf.Calls())
	}
	// 15.5 min out of the foreground, 7.5 min after the wheel: away.
	if n := later(clk, ft, v.renewAfterFor("itm_1")); n != 1 || !contains(wf.Calls(), "release itm_1") || v.held["itm_1"] != nil {
		t.Fatalf("out of the foreground for the away time: %d fired, calls %v", n, wf.Calls())
	}
	// Back to the foreground: hers again once she starts work.
	wf.mu.Lock()
	wf.fakeWorkflow.version++ // the cache changed meanwhile: coming back reloads
	wf.mu.Unlock()
	hooks.OnEnteredForeground()()
	if got := callsWith(wf, "claim"); len(got) != 2 || ft.live() != 0 {
		t.Fatalf("back: calls %v, %d timers", got, ft.live())
	}
	if n := startWork(c); n != 1 || len(callsWith(wf, "claim itm_1")) != 3 {
		t.Fatalf("work after coming back: %d, calls %v", n, wf.Calls())
	}
}

// Against the reference service: the window's release after ana was away
// reaches the service, and ben can claim the item; when ana comes back to
// it, ben's claim is his.
func TestTheReleaseAfterAwayReachesTheService(t *testing.T) {
	// The service's claims end on the window's clock.
	clk := &awayClock{t: time.Now()}
	srv, ana, ben := anaAndBen(t, screenapi.Options{Now: clk.now})
	c, ft := newAwayConsole(t, ana, clk, nil)
	t.Cleanup(func() { c.Settle(); c.Close() })
	v := c.panel.team
	c.apply(func() { c.batches.all.SetChecked(true) })
	c.Settle()
	row := -1
	c.apply(func() {
		for i, r := range c.items.rows {
			if i > 0 && r.Status == policy.StatusError && policy.Retryable(r.ErrorCode) && r.NeedsReviewer() {
				row = i
				break
			}
		}
	})
	if row < 0 {
		t.Fatal("the seed has no item a re-run may help below the first row")
	}
	var id string
	c.apply(func() { c.items.move(row - c.items.row); id = c.items.rows[row].ID })
	c.Settle()
	if startWork(c) != 1 || srv.ClaimOf(id) != "ana" {
		t.Fatalf("after work on %s: held by %q", id, srv.ClaimOf(id))
	}
	// Renewed at half the claim's length while under the away time (the
	// service's ends are in whole milliseconds: a renewal may fall a hair
	// before it), let go at the first renewal after it.
	for i := 0; v.held[id] != nil && i < 5; i++ {
		if n := later(clk, ft, v.renewAfterFor(id)); n != 1 {
			t.Fatalf("renewal %d: %d fired", i+1, n)
		}
		if v.held[id] != nil && srv.ClaimOf(id) != "ana" {
			t.Fatalf("renewal %d: held by %q", i+1, srv.ClaimOf(id))
		}
	}
	gone := clk.now().Sub(v.lastInput) // how long she had been away when it was let go
	if srv.ClaimOf(id) != "" || v.held[id] != nil || gone < ana.Team.ClaimAway() || gone > ana.Team.ClaimAway()+ana.Team.ClaimTTL()/2 {
		t.Fatalf("after ana was away %v: held by %q on the service", gone, srv.ClaimOf(id))
	}
	if n := srv.Arrivals(screenapi.EPRelease); n != 1 {
		t.Fatalf("%d releases reached the service", n)
	}
	if _, err := ben.Team.Claim(context.Background(), id, 0); err != nil || srv.ClaimOf(id) != "ben" {
		t.Fatalf("ben's claim: %v, held by %q", err, srv.ClaimOf(id))
	}
	// Ana comes back to the window and stays: the item is ben's now.
	if _, err := ana.Sync.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	nudgeKey(c)
	c.apply(c.reload)
	c.Settle()
	startWork(c)
	if srv.ClaimOf(id) != "ben" || !strings.HasPrefix(v.claim.Text, "Ben is on this") {
		t.Fatalf("back: held by %q, claim line %q", srv.ClaimOf(id), v.claim.Text)
	}
}

// Each of her inputs counts: one input a minute before the away time
// passes keeps the claim at the renewal that would have let it go.
func TestEachOfHerInputsKeepsTheClaim(t *testing.T) {
	for _, in := range []struct {
		name  string
		input func(c *Console, hooks foregroundHooks)
	}{
		{"a key", func(c *Console, _ foregroundHooks) { key(c)(&fyne.KeyEvent{Name: fyne.KeyLeft}) }},
		{"a letter", func(c *Console, _ foregroundHooks) { test.TypeOnCanvas(c.win.Canvas(), "z") }},
		{"a shortcut", func(c *Console, _ foregroundHooks) {
			c.win.Canvas().(fyne.Shortcutable).TypedShortcut(ctrl(fyne.KeyF))
		}},
		{"a click on her row", func(c *Console, _ foregroundHooks) { c.items.table.Select(widget.TableCellID{Row: 1, Col: 1}) }},
		{"a click on her batch", func(c *Console, _ foregroundHooks) {
			c.batches.list.OnSelected(c.batches.index(c.batches.batchID()))
		}},
		{"a button of the panel", func(c *Console, _ foregroundHooks) { test.Tap(c.panel.request) }},
		{"the search", func(c *Console, _ foregroundHooks) { test.Type(c.batches.search, "itm_1") }},
		{"a key in the viewer", func(c *Console, _ foregroundHooks) { pressOn(c.viewer.win, fyne.KeyLeft) }},
		{"a letter in the viewer", func(c *Console, _ foregroundHooks) { typeOn(c.viewer.win, "+") }},
		{"a drag in the viewer", func(c *Console, _ foregroundHooks) {
			c.viewer.sides[0].area.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 5}})
		}},
		{"the wheel in the viewer", func(c *Console, _ foregroundHooks) {
			c.viewer.sides[0].area.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 10}})
		}},
		{"the window back in the foreground", func(c *Console, hooks foregroundHooks) {
			hooks.OnExitedForeground()()
			hooks.OnEnteredForeground()()
		}},
	} {
		t.Run(in.name, func(t *testing.T) {
			c, ft, clk, wf := awayScene(t, "itm_0", "itm_1", twoVersions(t))
			v := c.panel.team
			hooks := watchedForeground(c)
			c.apply(func() { c.items.move(1) })
			c.Settle()
			startWork(c)
			c.apply(func() { typeOn(c.win, "v") })
			c.Settle()
			if c.viewer == nil || len(c.viewer.sides) == 0 || !contains(wf.Calls(), "claim itm_1") {
				t.Fatalf("viewer %v, calls %v", c.viewer != nil, wf.Calls())
			}
			later(clk, ft, v.renewAfterFor("itm_1"))
			d := v.renewAfterFor("itm_1")
			clk.add(d - time.Minute)
			if in.name == "the window back in the foreground" {
				in.input(c, hooks) // the hooks take the window's lock themselves
			} else {
				c.apply(func() { in.input(c, hooks) })
			}
			c.Settle()
			clk.add(time.Minute)
			if n := ft.fire(d); n != 1 || len(callsWith(wf, "claim itm_1")) != 3 || contains(wf.Calls(), "release itm_1") {
				t.Fatalf("%s a minute before the away time: %d fired, calls %v", in.name, n, wf.Calls())
			}
		})
	}
}

// foregroundHooks are the callbacks the window set on the app's lifecycle.
type foregroundHooks interface {
	OnEnteredForeground() func()
	OnExitedForeground() func()
}

// watchedForeground sets the window's foreground hooks on the test app's
// lifecycle, as Run does, and returns them.
func watchedForeground(c *Console) foregroundHooks {
	sc := &screens{win: c.win, c: c}
	lc := fyne.CurrentApp().Lifecycle()
	sc.watchForeground(lc)
	return lc.(foregroundHooks)
}
