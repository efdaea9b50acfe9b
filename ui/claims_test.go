package ui

import (
	"context"
	"image/color"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// teamFake adds the 1.1 workflow to the fake: claims on the items it
// holds, Next, and notes.
type teamFake struct {
	*fakeWorkflow
	version string
	notes   map[string][]store.NoteRow
	next    review.NextResult
	// claimErr, when set, is what every claim meets (offline).
	claimErr error
	// now, when set, is the clock a claim's end is counted from (the
	// console's Options.Now in a test that moves time).
	now func() time.Time
}

func (f *teamFake) setClaim(id string, c *policy.Claim) policy.Item {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.items {
		if f.items[i].ID == id {
			f.items[i].Claim = c
			return f.items[i].Item
		}
	}
	return policy.Item{}
}

func (f *teamFake) Claim(_ context.Context, id string, ttl time.Duration) (policy.Item, error) {
	f.record("claim " + id)
	f.mu.Lock()
	err, now := f.claimErr, f.now
	f.mu.Unlock()
	if err != nil {
		return policy.Item{}, err
	}
	if now == nil {
		now = time.Now
	}
	return f.setClaim(id, &policy.Claim{Reviewer: "ana", ExpiresAt: now().Add(f.ClaimTTL())}), nil
}
func (f *teamFake) Release(_ context.Context, id string) (policy.Item, error) {
	f.record("release " + id)
	return f.setClaim(id, nil), nil
}
func (f *teamFake) Next(context.Context) (review.NextResult, error) {
	f.record("next")
	return f.next, nil
}
func (f *teamFake) AddNote(_ context.Context, id, text string) (review.NoteResult, error) {
	f.record("note " + id + " " + text)
	n := store.NoteRow{ItemID: id, Author: "ana", Text: text, State: policy.ActionQueued, CreatedAt: time.Now()}
	f.mu.Lock()
	f.notes[id] = append(f.notes[id], n)
	f.mu.Unlock()
	return review.NoteResult{Note: n}, nil
}
func (f *teamFake) APIVersion() string      { return f.version }
func (f *teamFake) ClaimTTL() time.Duration { return 15 * time.Minute }
func (f *teamFake) Item(ctx context.Context, id string) (review.Detail, error) {
	d, err := f.fakeWorkflow.Item(ctx, id)
	f.mu.Lock()
	defer f.mu.Unlock()
	d.NoteRows = append([]store.NoteRow(nil), f.notes[id]...)
	d.Notes = len(d.NoteRows)
	return d, err
}

func newTeamFake(items ...review.ItemView) *teamFake {
	return &teamFake{fakeWorkflow: &fakeWorkflow{items: items}, version: "1.1", notes: map[string][]store.NoteRow{}}
}

func newTeamConsole(t *testing.T, wf any) *Console {
	t.Helper()
	c, _ := newClaimsConsole(t, wf)
	return c
}

// newClaimsConsole is a console whose claims wait on timers the test
// fires: the renewals never run by the wall clock.
func newClaimsConsole(t *testing.T, wf any) (*Console, *fakeTimers) {
	t.Helper()
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
	ft := &fakeTimers{c: c}
	c.panel.team.after = ft.after
	c.apply(c.reload)
	c.Settle()
	return c, ft
}

// fakeTimers is the claims' clock in a test: a timer fires only when the
// test fires it, on the UI goroutine, as the real one does.
type fakeTimers struct {
	c       *Console
	mu      sync.Mutex
	pending []*fakeTimer
}

type fakeTimer struct {
	d       time.Duration
	f       func()
	stopped bool
}

func (ft *fakeTimers) after(d time.Duration, f func()) func() {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	tm := &fakeTimer{d: d, f: f}
	ft.pending = append(ft.pending, tm)
	return func() {
		ft.mu.Lock()
		defer ft.mu.Unlock()
		tm.stopped = true
	}
}

// fire fires every timer of length d that is set and not stopped, as if d
// had passed, and waits for what they started; it returns how many fired.
func (ft *fakeTimers) fire(d time.Duration) int {
	ft.mu.Lock()
	var due []*fakeTimer
	rest := ft.pending[:0]
	for _, tm := range ft.pending {
		switch {
		case tm.stopped:
		case tm.d == d:
			due = append(due, tm)
		default:
			rest = append(rest, tm)
		}
	}
	ft.pending = rest
	ft.mu.Unlock()
	for _, tm := range due {
		ft.c.apply(tm.f)
	}
	ft.c.Settle()
	return len(due)
}

// live is how many timers are set and not stopped.
func (ft *fakeTimers) live() int {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	n := 0
	for _, tm := range ft.pending {
		if !tm.stopped {
			n++
		}
	}
	return n
}

func callsWith(f *teamFake, prefix string) []string {
	var out []string
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func TestAnItemHeldByAnotherReviewerHasItsActionsOff(t *testing.T) {
	until := time.Now().Add(10 * time.Minute)
	held := errorItem("itm_1", "CLASSIFIER_TIMEOUT")
	held.Claim = &policy.Claim{Reviewer: "ben", ExpiresAt: until}
	held.Holder = held.Claim
	wf := newTeamFake(held)
	c := newTeamConsole(t, wf)
	want := "Ben is on this until " + policy.UntilText(until, time.Now())
	if !c.panel.loaded || !c.panel.resubmit.Disabled() || !c.panel.request.Disabled() || !c.panel.upload.Disabled() {
		t.Fatal("the action buttons must be off while ben holds the item")
	}
	if !strings.Contains(c.panel.why.Text, want) || c.panel.team.claim.Text != want {
		t.Fatalf("why %q claim %q", c.panel.why.Text, c.panel.team.claim.Text)
	}
	if got, warn := drawnColours(c, c.panel.team.claim), theme.Color(theme.ColorNameWarning); len(got) == 0 || got[0] != warn {
		t.Fatalf("the claim line is drawn in %v, want the warning colour %v", got, warn)
	}
	if got := c.panel.nextActor.Text; got != "Who acts next: Ben, the reviewer who holds it." {
		t.Fatalf("next actor %q", got)
	}
	if st := c.tipCell(0, c.col(t, "Action")); st.Text != "held: Ben" || st.hint != want || st.Importance != widget.WarningImportance {
		t.Fatalf("row's action cell %q, tooltip %q", st.Text, st.hint)
	}
	if got := callsWith(wf, "claim"); len(got) != 0 {
		t.Fatalf("an item someone else holds was claimed: %v", got)
	}
	c.onRune('r')
	c.Settle()
	if got := callsWith(wf, "resubmit"); len(got) != 0 {
		t.Fatalf("a held item was re-submitted: %v", got)
	}
}

// r, f and u on an item someone else holds open no paid confirmation nor
// dialog: they say who holds it and until when, and nothing is sent.
func TestKeysOnAnItemSomeoneElseHoldsSayWhoAndUntilWhen(t *testing.T) {
	until := time.Now().Add(10 * time.Minute)
	retry, newFile := errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "DECODE_FAILED")
	for _, v := range []*review.ItemView{&retry, &newFile} {
		v.Claim = &policy.Claim{Reviewer: "ben", ExpiresAt: until}
		v.Holder = v.Claim
	}
	wf := newTeamFake(retry, newFile)
	c := newTeamConsole(t, wf)
	want := "Ben is on this until " + policy.UntilText(until, time.Now())
	for _, k := range []struct {
		row  int
		key  string
		what string
	}{{0, "r", "re-submitting"}, {1, "f", "requesting a file"}, {1, "u", "uploading a file"}} {
		c.apply(func() { c.items.move(k.row - c.items.row) })
		c.Settle()
		c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), k.key) })
		c.Settle()
		if top := c.win.Canvas().Overlays().Top(); top != nil {
			t.Fatalf("%s on a held item opened a dialog", k.key)
		}
		if msg := c.panel.message.Text; !strings.Contains(msg, want) || !strings.Contains(msg, k.what) || !strings.Contains(msg, "nothing was sent") {
			t.Fatalf("%s: message %q, want who (%q) and what (%q)", k.key, msg, want, k.what)
		}
	}
	if got := wf.Calls(); len(got) != 0 {
		t.Fatalf("a held item was acted on or claimed: %v", got)
	}
}

// A claim that ends on another day says which day, in the row and in the
// panel: "until 09:17" for a claim that ends tomorrow reads as "tonight".
func TestAClaimEndingTomorrowShowsItsDate(t *testing.T) {
	until := time.Now().Add(30 * time.Hour)
	held := errorItem("itm_1", "CLASSIFIER_TIMEOUT")
	held.Claim = &policy.Claim{Reviewer: "ben", ExpiresAt: until}
	held.Holder = held.Claim
	c := newTeamConsole(t, newTeamFake(held))
	// The year joins the date only across New Year's Eve.
	want, clock := "Ben is on this until "+until.Local().Format("Jan 2"), until.Local().Format("15:04")
	if got := c.panel.team.claim.Text; !strings.HasPrefix(got, want) || !strings.HasSuffix(got, clock) {
		t.Fatalf("panel %q, want %q ... %q", got, want, clock)
	}
	if st := c.tipCell(0, c.col(t, "Action")); !strings.HasPrefix(st.hint, want) || !strings.HasSuffix(st.hint, clock) {
		t.Fatalf("row status's tooltip %q, want %q ... %q", st.hint, want, clock)
	}
}

// Claims follow the work, not the cursor: nothing at start, nothing for
// passing through rows or for an item with nothing to do; starting work
// on an item that needs her claims it, and moving on releases it.
func TestClaimsFollowTheWorkNotTheCursor(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "DECODE_FAILED"), scoredItem("itm_3", 12, policy.RecommendForward))
	c, ft := newClaimsConsole(t, wf)
	if c.panel.itemID != "itm_1" || ft.live() != 0 {
		t.Fatalf("item %q, %d timers", c.panel.itemID, ft.live())
	}
	if ft.fireAll(); len(callsWith(wf, "claim")) != 0 {
		t.Fatalf("opening the window claimed: %v", wf.Calls())
	}
	// Passing through every row: no claim, and no timer waits.
	for _, d := range []int{1, 1, -1, -1, 1} {
		c.apply(func() { c.items.move(d) })
		c.Settle()
	}
	if c.panel.itemID != "itm_2" || ft.live() != 0 || len(callsWith(wf, "claim")) != 0 {
		t.Fatalf("passing through: item %q, %d timers, calls %v", c.panel.itemID, ft.live(), wf.Calls())
	}
	// She starts work on an item that needs her: claimed.
	if n := startWork(c); n != 1 || !contains(wf.Calls(), "claim itm_2") {
		t.Fatalf("work: %d, calls %v", n, wf.Calls())
	}
	if !strings.HasPrefix(c.panel.team.claim.Text, "You are on this until") || c.panel.team.held["itm_2"] == nil {
		t.Fatalf("claim %q", c.panel.team.claim.Text)
	}
	// The claim is renewed at half its length while she stays.
	if n := ft.fire(c.panel.team.renewAfterFor("itm_2")); n != 1 || len(callsWith(wf, "claim itm_2")) != 2 {
		t.Fatalf("renewal: %d fired, calls %v", n, wf.Calls())
	}
	// A scored item needs nobody: moving there releases, staying claims nothing.
	c.apply(func() { c.items.move(1) })
	c.Settle()
	if !contains(wf.Calls(), "release itm_2") || c.panel.team.held["itm_2"] != nil {
		t.Fatalf("moving on: %v", wf.Calls())
	}
	ft.fireAll()
	if contains(wf.Calls(), "claim itm_3") {
		t.Fatalf("an item with nothing to do was claimed: %v", wf.Calls())
	}
	c.ReleaseClaims(time.Second) // nothing held: no call
	if got := callsWith(wf, "release"); len(got) != 1 {
		t.Fatalf("releases %v", got)
	}
}

// Acting claims the item at once, and the claim stays (and is renewed)
// while her action is open, after she moved on; its end releases it.
func TestActingClaimsAndTheClaimLastsWhileTheActionIsOpen(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "DECODE_FAILED"))
	c, ft := newClaimsConsole(t, wf)
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "r"); key(c)(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	c.Settle()
	if got := wf.Calls(); !contains(got, "claim itm_1") || !contains(got, "resubmit itm_1") {
		t.Fatalf("acting: %v", got)
	}
	// The fake leaves the re-submission queued; the window moved on.
	if c.panel.itemID != "itm_2" {
		t.Fatalf("after acting the window shows %q", c.panel.itemID)
	}
	if contains(wf.Calls(), "release itm_1") || c.panel.team.held["itm_1"] == nil {
		t.Fatalf("a claim on an item with a queued action was released: %v", wf.Calls())
	}
	if n := ft.fire(c.panel.team.renewAfterFor("itm_1")); n != 1 || len(callsWith(wf, "claim itm_1")) != 2 {
		t.Fatalf("renewal while queued: %d fired, calls %v", n, wf.Calls())
	}
	// The action ends: the next look at the cache releases the claim.
	wf.setAction("itm_1", policy.ActionResubmit, policy.ActionDone, "")
	c.apply(c.reload)
	c.Settle()
	if !contains(wf.Calls(), "release itm_1") || c.panel.team.held["itm_1"] != nil {
		t.Fatalf("the action ended, the claim stays: %v", wf.Calls())
	}
	// Closing the window releases what it holds but an open action's.
	startWork(c) // she starts work on itm_2: claimed
	if !contains(wf.Calls(), "claim itm_2") {
		t.Fatalf("work on itm_2: %v", wf.Calls())
	}
	c.ReleaseClaims(time.Second)
	if !contains(wf.Calls(), "release itm_2") {
		t.Fatalf("closing: %v", wf.Calls())
	}
}

// Writing a note on an item that needs her claims it, without a dwell.
func TestWritingANoteClaims(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "CLASSIFIER_TIMEOUT"), scoredItem("itm_2", 12, policy.RecommendForward))
	c, _ := newClaimsConsole(t, wf)
	c.apply(func() { test.Type(c.panel.team.entry, "Calling the customer") })
	c.Settle()
	if got := callsWith(wf, "claim"); len(got) != 1 || got[0] != "claim itm_1" {
		t.Fatalf("a note on an item that needs her: %v", got)
	}
	c.apply(func() { c.panel.team.entry.SetText(""); c.items.move(1) })
	c.Settle()
	c.apply(func() { test.Type(c.panel.team.entry, "Looks fine") })
	c.Settle()
	if got := callsWith(wf, "claim"); len(got) != 1 {
		t.Fatalf("a note on an item with nothing to do claimed it: %v", got)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestNextClaimsAndOpensTheItem(t *testing.T) {
	first, second := errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "INTERNAL_ERROR")
	wf := newTeamFake(first, second)
	c := newTeamConsole(t, wf)
	next := second
	next.Claim = &policy.Claim{Reviewer: "ana", ExpiresAt: time.Now().Add(15 * time.Minute)}
	wf.next = review.NextResult{Item: &next, Claimed: true, Why: "claimed"}
	wf.setClaim("itm_2", next.Claim)
	c.onRune('n')
	c.Settle()
	if c.panel.itemID != "itm_2" || c.items.row != 1 || c.panel.team.held["itm_2"] == nil {
		t.Fatalf("panel %q row %d held %v", c.panel.itemID, c.items.row, c.panel.team.held)
	}
	if !contains(wf.Calls(), "next") || contains(wf.Calls(), "claim itm_1") {
		t.Fatalf("calls %v", wf.Calls())
	}
	// Nothing left: the button says so and the panel stays.
	wf.next = review.NextResult{Why: "nothing needs a reviewer that nobody else holds"}
	c.apply(func() { test.Tap(c.panel.team.next) })
	c.Settle()
	if c.panel.itemID != "itm_2" || c.panel.team.claim.Text != "nothing needs a reviewer that nobody else holds" {
		t.Fatalf("panel %q claim %q", c.panel.itemID, c.panel.team.claim.Text)
	}
}

func TestAVersion10ServiceShowsNoClaims(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "CLASSIFIER_TIMEOUT"))
	wf.version = "1.0"
	c := newTeamConsole(t, wf)
	if got := callsWith(wf, "claim"); len(got) != 0 {
		t.Fatalf("claims against a 1.0 service: %v", got)
	}
	if !strings.Contains(c.panel.team.claim.Text, "does not offer") || !c.panel.team.add.Disabled() || c.panel.resubmit.Disabled() {
		t.Fatalf("claim %q", c.panel.team.claim.Text)
	}
}

func TestNextOpensAnItemOfAnotherBatch(t *testing.T) {
	here, there := errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_9", "INTERNAL_ERROR")
	there.BatchID = "bat_2"
	wf := newTeamFake(here, there)
	wf.batches = []store.BatchSummary{{ID: "bat_1", CustomerRef: "CUST-1", CreatedAt: time.Now(), Items: 1},
		{ID: "bat_2", CustomerRef: "CUST-2", CreatedAt: time.Now().Add(-time.Hour), Items: 1}}
	c := newTeamConsole(t, wf)
	if c.batches.batchID() != "bat_1" || c.panel.itemID != "itm_1" {
		t.Fatalf("batch %q item %q", c.batches.batchID(), c.panel.itemID)
	}
	next := there
	next.Claim = &policy.Claim{Reviewer: "ana", ExpiresAt: time.Now().Add(15 * time.Minute)}
	wf.setClaim("itm_9", next.Claim)
	wf.next = review.NextResult{Item: &next, Claimed: true}
	c.onRune('n')
	c.Settle()
	if c.batches.batchID() != "bat_2" || c.panel.itemID != "itm_9" || c.items.row != 0 || c.panel.team.held["itm_9"] == nil {
		t.Fatalf("batch %q item %q row %d held %v", c.batches.batchID(), c.panel.itemID, c.items.row, c.panel.team.held)
	}
	// A reload (the cache changed) keeps it open.
	c.apply(c.reload)
	c.Settle()
	if c.panel.itemID != "itm_9" || contains(wf.Calls(), "release itm_9") {
		t.Fatalf("after a reload: %q %v", c.panel.itemID, wf.Calls())
	}
}

// renewAfterFor is the length of the renewal timer of the claim the window
// holds on an item (0: none).
func (v *teamView) renewAfterFor(id string) time.Duration {
	var d time.Duration
	v.p.c.apply(func() {
		if h := v.held[id]; h != nil {
			d = h.after
		}
	})
	return d
}

// realReviewer is a review.Service on its own cache in dir, with the token
// of one of the reference service's reviewers, synced.
func realReviewer(t *testing.T, srv *screenapi.Server, name, token string) *review.Service {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), name+".db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := client.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.RetrySleep = srv.URL(), client.Secret(token), time.Millisecond
	api, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close(); db.Close() })
	svc, err := review.New(db, api, review.Config{Budget: cfg.Budget(), Reviewer: name})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Sync.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return svc
}

// anaAndBen starts the reference service with the demo's two reviewers
// (and opts), and gives each a workflow on a cache of their own, synced.
func anaAndBen(t *testing.T, opts screenapi.Options) (srv *screenapi.Server, ana, ben *review.Service) {
	t.Helper()
	opts.Reviewers = screenapi.DemoReviewers()
	srv, err := screenapi.Start("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	toks := map[string]string{}
	for _, r := range opts.Reviewers {
		toks[r.Name] = r.Token
	}
	return srv, realReviewer(t, srv, "ana", toks["ana"]), realReviewer(t, srv, "ben", toks["ben"])
}

// Two reviewers on one reference service do not block each other by
// looking: ana passing through rows, and resting on one for less than the
// dwell, claims nothing, and ben acts on the item she looks at; an item
// she stays on is hers, and ben's action on it is refused by the service.
func TestTwoReviewersDoNotBlockEachOtherByLooking(t *testing.T) {
	srv, ana, ben := anaAndBen(t, screenapi.Options{})
	c, ft := newClaimsConsole(t, ana)
	t.Cleanup(func() { c.Settle(); c.Close() })
	c.apply(func() { c.batches.all.SetChecked(true) }) // every batch's items
	c.Settle()
	var retry []int // rows that a re-run may help: they need her
	c.apply(func() {
		for i, r := range c.items.rows {
			if r.Status == policy.StatusError && policy.Retryable(r.ErrorCode) && r.NeedsReviewer() {
				retry = append(retry, i)
			}
		}
	})
	if len(retry) < 2 {
		t.Fatalf("the seed has %d items a re-run may help", len(retry))
	}
	looked, stayed := retry[0], retry[1]
	// walk moves down one row at a time to row, as the arrow key does, and
	// returns the item the panel shows then.
	walk := func(row int) string {
		t.Helper()
		at := -1
		c.apply(func() { at = c.items.row })
		for at < row {
			c.apply(func() { c.items.move(1) })
			c.Settle()
			was := at
			c.apply(func() { at = c.items.row })
			if at == was {
				t.Fatalf("the selection stays at row %d", at)
			}
		}
		var id, want string
		c.apply(func() { id, want = c.panel.itemID, c.items.rows[row].ID })
		if id != want {
			t.Fatalf("ana is on %q, want %q", id, want)
		}
		return id
	}
	// Ana walks from the top to the row she merely looks at.
	lookedID := walk(looked)
	if n := srv.Arrivals(screenapi.EPClaim); n != 0 {
		t.Fatalf("passing through %d rows made %d claims", looked+1, n)
	}
	res, err := ben.Actions.Resubmit(context.Background(), lookedID)
	if err != nil || res.Action.State != policy.ActionDone || srv.Analyses(lookedID) != 1 {
		t.Fatalf("ben on the item ana merely looks at: %+v %v", res, err)
	}
	// She rests on another one: still not hers.
	stayedID := walk(stayed)
	if ft.fireAll(); srv.Arrivals(screenapi.EPClaim) != 0 {
		t.Fatalf("resting on %s made %d claims", stayedID, srv.Arrivals(screenapi.EPClaim))
	}
	// She starts work on it: it is hers, and ben's action is refused.
	if startWork(c) != 1 || srv.ClaimOf(stayedID) != "ana" {
		t.Fatalf("after work on %s: held by %q, %d claims", stayedID, srv.ClaimOf(stayedID), srv.Arrivals(screenapi.EPClaim))
	}
	res, err = ben.Actions.Resubmit(context.Background(), stayedID)
	if err != nil || res.Action.State != policy.ActionFailed || policy.ErrorCode(res.Err) != policy.CodeClaimed || srv.Analyses(stayedID) != 0 {
		t.Fatalf("ben on the item ana stays on: %+v %v", res, err)
	}
	// She moves on: released.
	c.apply(func() { c.items.move(1) })
	c.Settle()
	if srv.ClaimOf(stayedID) != "" {
		t.Fatalf("moving on kept the claim of %s", srv.ClaimOf(stayedID))
	}
}

// After her note is sent, the panel no longer says that it waits.
func TestTheNoteNoLongerWaitsOnceSent(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "DECODE_FAILED"))
	c := newTeamConsole(t, wf)
	c.apply(func() { test.Type(c.panel.team.entry, "Scan received by post.") })
	c.apply(func() { test.Tap(c.panel.team.add) })
	c.Settle()
	if !strings.Contains(c.panel.team.claim.Text, "Your note waits in the outbox") {
		t.Fatalf("queued: claim %q", c.panel.team.claim.Text)
	}
	wf.mu.Lock()
	wf.notes["itm_1"][0].State = policy.ActionDone // a flush sent it
	wf.mu.Unlock()
	c.apply(c.reload)
	c.Settle()
	if strings.Contains(c.panel.team.claim.Text, "waits") || strings.Contains(c.panel.team.notes.Text, "waiting") {
		t.Fatalf("sent: claim %q notes %q", c.panel.team.claim.Text, c.panel.team.notes.Text)
	}
}

// Through the window and the workflow on the reference service: her own
// note does not stop her own queued re-submission (the 412 it causes is
// sent again once, with the same key); ben's note stops the other one, and
// the panel says what changed.
func TestHerOwnNoteDoesNotStopHerActionButBensDoes(t *testing.T) {
	srv, ana, ben := anaAndBen(t, screenapi.Options{})
	c, _ := newClaimsConsole(t, ana)
	t.Cleanup(func() { c.Settle(); c.Close() })
	ctx := context.Background()
	open := func(id string) {
		t.Helper()
		d, err := ana.Triage.Item(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		c.apply(func() { c.openItem(id, d.BatchID) })
		c.Settle()
		if c.panel.itemID != id {
			t.Fatalf("the window shows %q, want %q", c.panel.itemID, id)
		}
	}
	queueOffline := func(id string) {
		t.Helper()
		open(id)
		srv.Refuse()
		c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "r"); key(c)(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
		c.Settle()
		if err := srv.Accept(); err != nil {
			t.Fatal(err)
		}
		if d, _ := ana.Triage.Item(ctx, id); d.OpenAction() != policy.ActionQueued {
			t.Fatalf("%s: action %q, want queued", id, d.OpenAction())
		}
	}
	mine, his := srv.FindCode("SOURCE_UNREACHABLE"), srv.FindCode("CLASSIFIER_TIMEOUT")
	queueOffline(mine)
	open(mine)
	c.apply(func() { test.Type(c.panel.team.entry, "Re-running it: the storage was down this morning.") })
	c.apply(func() { test.Tap(c.panel.team.add) })
	c.Settle()
	queueOffline(his)
	if _, err := ben.Team.AddNote(ctx, his, "Customer called: a new scan is coming."); err != nil {
		t.Fatal(err)
	}
	if _, err := ana.Actions.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	c.apply(c.reload)
	c.Settle()
	if d, _ := ana.Triage.Item(ctx, mine); d.Action == nil || d.Action.State != policy.ActionDone || srv.Analyses(mine) != 1 {
		t.Fatalf("her own note stopped her action: %+v, %d analyses", d.Action, srv.Analyses(mine))
	}
	open(his)
	if msg := c.panel.message.Text; !strings.Contains(msg, "not run: Ben added a note") || srv.Analyses(his) != 0 {
		t.Fatalf("ben's note: message %q, %d analyses", msg, srv.Analyses(his))
	}
	if strings.Contains(c.panel.team.claim.Text, "waits") {
		t.Fatalf("claim %q", c.panel.team.claim.Text)
	}
}

// A claim that cannot be made (offline) is tried once per reason: the
// panel's refresh after it does not try again, and again; her note does.
func TestAClaimThatFailsIsNotTriedAgainAndAgain(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "DECODE_FAILED"))
	wf.claimErr = &client.Error{Code: policy.CodeAPIUnreachable, Class: client.ClassNotConnected, Message: "connection refused"}
	c, _ := newClaimsConsole(t, wf)
	c.apply(func() { c.items.move(1) })
	c.Settle()
	startWork(c)
	if got := callsWith(wf, "claim"); len(got) != 1 || !strings.HasPrefix(c.panel.team.claim.Text, "Offline") {
		t.Fatalf("calls %v claim %q", got, c.panel.team.claim.Text)
	}
	c.apply(c.reload)
	c.Settle()
	if got := callsWith(wf, "claim"); len(got) != 1 {
		t.Fatalf("a reload tried again: %v", got)
	}
	c.apply(func() { test.Type(c.panel.team.entry, "x") })
	c.Settle()
	if got := callsWith(wf, "claim"); len(got) != 2 {
		t.Fatalf("her note did not try again: %v", got)
	}
}

// A held row says who holds it in a few words in its Action cell, so that
// the status and its age stay whole; until when is the tooltip's and the
// panel's. Her own action on the row says its state instead.
func TestAHeldRowNamesTheHolderShortly(t *testing.T) {
	held := errorItem("itm_1", "CLASSIFIER_TIMEOUT")
	held.Holder = &policy.Claim{Reviewer: "ben", ExpiresAt: time.Now().Add(10 * time.Minute)}
	plain := errorItem("itm_1", "CLASSIFIER_TIMEOUT")
	ht, hi := statusAgeCell(held)
	pt, pi := statusAgeCell(plain)
	if ht != pt || hi != pi {
		t.Fatalf("the status cell of a held row changed: %q (%v), plain %q (%v)", ht, hi, pt, pi)
	}
	if text, imp := actionCell(held); text != "held: Ben" || imp != widget.WarningImportance {
		t.Fatalf("action cell %q (%v)", text, imp)
	}
	held.Action = &store.ActionRef{State: policy.ActionQueued}
	if text, _ := actionCell(held); text != actionText(held) {
		t.Fatalf("her own action on a held row: %q", text)
	}
}

// drawnColours are the colours label l's texts are drawn in, as its
// renderer has them now.
func drawnColours(c *Console, l *textLabel) []color.Color {
	var out []color.Color
	c.apply(func() { eachText(l, func(t *canvas.Text) { out = append(out, t.Color) }) })
	return out
}
