// Package ui is the console window (fyne.io/fyne/v2). Each screen is a
// struct holding its widgets, built by a constructor, with named onXxx
// handlers: the console (console.go), the connection strip (strip.go), the
// batches, the items table and the item panel, the preferences
// (preferences.go). The window never talks HTTP or SQL: it calls the
// reviewer's workflow through one small interface per screen, each one of
// review's services, handed over together in a Workflow (workflow.go),
// always off the UI goroutine and under the window's context, which
// closing the window cancels (syncing, probing and flushing are in
// syncing.go); it touches widgets from other goroutines only through
// onUI (thread.go), which hands them to fyne.Do. What is news
// after a sync comes with the sync's result (review.SyncProgress.NewItems).
// It does not import Fyne's app driver, so its widgets run headless
// under fyne.io/fyne/v2/test.
package ui

import (
	"context"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"github.com/trustscreen/reviewer/internal/document"
	"github.com/trustscreen/reviewer/review"
)

// Options describe the console's surroundings.
type Options struct {
	Demo        bool   // show the demo-data mark
	APIURL      string // shown in preferences
	TokenSource string // where the token comes from (never the token)
	// ReviewerSource says where the reviewer's name comes from (the system
	// user, --reviewer, REVIEWER_NAME); it is shown, not edited here.
	ReviewerSource string
	// SaveAPIURL keeps the API URL for the next start (nil: not saved).
	SaveAPIURL func(apiURL string)
	// Prefs keeps the window's own preferences (theme, auto-advance, last
	// folder); nil: the current app's.
	Prefs fyne.Preferences
	// ActionLimit is the longest an action may wait for the API (the
	// client's request cap), shown while it waits.
	ActionLimit time.Duration
	Now         func() time.Time
	// Built, when set, is called once by Run on the UI goroutine when the
	// window's content is built, before the window is shown.
	Built func()
	// WipeAtExit, when set, asks the command line to remove all local
	// data once the window has closed and the cache with it (wipe.go;
	// nil: Preferences do not offer it).
	WipeAtExit func()
	// Warnings are what opening the cache found wrong and put right
	// (permissions wider than private): said once, in a dialog, at start.
	Warnings []string
	// Settled, when set, is called once, off the UI goroutine, when the
	// window's start-up work (the first read of the cache, the first sync)
	// has ended.
	Settled func()
	// SignIn signs in when Run gets no workflow (the first-start screen,
	// signin.go); SignOut, set by Run when the token came from what it
	// removes, is Preferences' "Sign out". Both nil for the demo.
	SignIn  SignIn
	SignOut func()
	// Documents, when set, fetches the items' documents in place of the
	// workflow (tests); DocumentLimits bound their decoding (zero: from
	// the environment).
	Documents      Documents
	DocumentLimits document.Limits
	// SyncEvery is the background sync's interval (REVIEWER_SYNC_EVERY;
	// zero: DefaultSyncEvery; negative: none); NotifyOff turns notifications off whatever
	// Preferences say (REVIEWER_NOTIFY=off). Clock, when set, is the
	// background sync's and the notifications' (tests); Notify sends a
	// notification (nil: the app's SendNotification). Tray is the
	// system tray, when there is one (tray.go).
	SyncEvery time.Duration
	NotifyOff bool
	Clock     Clock
	Notify    func(*fyne.Notification)
	Tray      TrayApp
}

// Console is the main window's content and its screens.
type Console struct {
	// awaiting is the decisions (item id → decision id) that awaited her
	// confirmation at the last sync; nil before the first (decide.go).
	awaiting map[string]string

	win  fyne.Window
	wf   *Workflow
	opts Options

	strip    *statusStrip
	settings *Preferences
	batches  *batchList
	items    *itemTable
	panel    *itemPanel
	right    *container.Split
	body     *fyne.Container

	view  viewState   // the saved view in force (views.go)
	multi multiSelect // the rows selected for a bulk action (select.go)

	// ctx is the window's lifetime: all its background work (background(),
	// syncs, flushes, actions, bulk runs) runs under it, and closing the
	// window (Close) cancels it. An action cut short so is checked later
	// with its stored key, never sent again blind.
	ctx  context.Context
	stop context.CancelFunc
	jobs jobs           // background work, for Settle
	life sync.WaitGroup // its watchers, which end with ctx (live, Wait)

	// UI goroutine only:
	flights   map[string]*flight
	ticking   bool
	onEnter   func() // the open confirmation's default button
	onEscape  func() // the open dialog's own close, when it must run its OnClosed
	uploadDlg *uploadDialog
	viewer    *viewer           // the document viewer last opened (viewer.go)
	sheet     *container.Scroll // the open shortcut sheet's, for its keys (shortcuts.go)
	back      lastActed         // the item of the last action's result, for b (strip.go)
	panelOff  bool
	warned    bool          // Options.Warnings were said
	views     []review.View // the saved views, as last read (views.go)
	// panelAuto: the panel was hidden because the window is narrow (not by
	// p); it comes back when the window is wide enough again.
	panelAuto bool
	flushing  bool
	conn      review.Connectivity // the last read of the connection (syncing.go)
	syncAgain bool                // a first sync failed: the next probe that finds the API answering syncs (syncing.go)
	// applyingResult: a background result is being applied (background).
	applyingResult bool
	// keyMods reads the modifier keys held (Shift+arrows, Ctrl-click).
	keyMods func() fyne.KeyModifier
	tray    *tray // nil: no system tray (tray.go)
	// closeWindow, when set, closes the window in place of Close (tests).
	closeWindow func()

	// The background sync and the notifications (background.go, notify.go).
	clock Clock
	sched *schedule
	notes *notifier

	mu         sync.Mutex
	syncCancel context.CancelFunc
	version    int64
}

// rightOffset is the items table's share beside the panel: at 1280 pixels
// it holds the file, status with age, score with band, recommendation, code
// and action columns whole.
const rightOffset = 0.73

// batchLimit is how many of the newest batches the list shows.
const batchLimit = 500

// NewConsole builds the console into win.
func NewConsole(win fyne.Window, wf *Workflow, opts Options) *Console {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ActionLimit <= 0 {
		opts.ActionLimit = 30 * time.Second
	}
	if opts.Documents == nil {
		opts.Documents = wf.Documents
	}
	c := &Console{win: win, wf: wf, opts: opts, flights: map[string]*flight{}, version: -1, keyMods: currentModifiers}
	// Building the console is one widget update: background work it
	// starts applies its result after, on the same goroutine (asUI).
	asUI(func() { c.build(win, opts) })
	return c
}

// build makes the console's screens into win (NewConsole, on the UI
// goroutine).
func (c *Console) build(win fyne.Window, opts Options) {
	wf := c.wf
	c.ctx, c.stop = context.WithCancel(context.Background())
	c.clock = opts.Clock
	if c.clock == nil {
		c.clock = systemClock{}
	}
	c.sched = newSchedule(opts.SyncEvery, c.clock.Now())
	send := opts.Notify
	if send == nil {
		send = func(n *fyne.Notification) {
			toUI(false, func() { // a held line goes from the notifier's timer (thread.go)
				if a := fyne.CurrentApp(); a != nil {
					a.SendNotification(n)
				}
			})
		}
	}
	c.notes = newNotifier(c.ctx, c.clock, send, c.notifyOn)
	win.SetOnClosed(c.Close)
	c.settings = newPreferences(opts, func() (string, bool) { return wf.Team.Reviewer(), wf.Team.ReviewerFromService() }, func(say string) {
		if say != "" {
			c.strip.say(say)
		}
		c.showConnectivity(c.conn)
	})
	c.strip = newStatusStrip(opts.Demo, stripHandlers{sync: c.onSync, cancelSync: c.onCancelSync, preferences: c.showPreferences,
		shortcuts: c.showShortcuts, export: c.onExport, togglePanel: c.togglePanel, news: c.onNews})
	c.strip.whoFrom = c.reviewerFrom
	c.settings.keptDocuments = c.keptPreferences // kept.go
	c.settings.localData = c.localDataRow        // wipe.go
	if opts.SyncEvery >= 0 {
		c.strip.nextSync = c.sched.syncWords
	}
	c.batches = newBatchList(c)
	c.items = newItemTable(c)
	c.panel = newItemPanel(c)
	c.panel.team.entry.submit = c.panel.team.onAddNote // Ctrl+Enter sends the note (notes.go)

	c.right = container.NewHSplit(c.items.content, c.panel.content)
	c.right.Offset = rightOffset
	main := container.NewHSplit(c.batches.content, c.right)
	main.Offset = 0.16
	// The window is laid out several times while it is built, at widths
	// that are not yet its own (its least size, then the size it had):
	// hiding and showing the panel for each cost a fifth of the window's
	// start. Only the widths after the build count.
	building := true
	c.body = container.New(&widthWatch{on: c.onWidth, ready: func() bool { return !building }}, main)
	win.SetContent(container.NewBorder(c.strip, nil, nil, nil, c.body))
	c.restoreWindowState() // windowstate.go
	c.bindKeys()
	c.showTray()
	win.SetOnDropped(func(p fyne.Position, uris []fyne.URI) { c.apply(func() { c.onDropped(p, uris) }) })
	building = false
}

// reviewerFrom says in words where the reviewer's name comes from.
func (c *Console) reviewerFrom() string {
	switch {
	case c.wf.Team.ReviewerFromService():
		return "the screening service"
	case c.opts.ReviewerSource != "":
		return c.opts.ReviewerSource
	}
	return "the system user"
}

// Start reads what the cache holds, to show it. Run calls it, and starts
// the first sync, once the window is mapped and drawn.
func (c *Console) Start() {
	c.reload()
	if len(c.opts.Warnings) > 0 && !c.warned {
		c.warned = true
		c.showWarnings()
	}
}

// showWarnings says what opening the cache found wrong and put right: a
// reviewer who started the console from a menu never sees its stderr.
func (c *Console) showWarnings() {
	f := newDialogForm(c.win, c)
	f.focusFirst(f.defaultButton("OK (Enter)", f.hide))
	text := strings.Join(c.opts.Warnings, "\n\n") + "\n\nThe cache holds customers' data: keep its folder private to you."
	f.show("The cache was not private", wrapped(text), []fyne.CanvasObject{f.def}, 520)
}

// Close ends the window's lifetime: the background work it started is
// cancelled. Closing the window calls it.
func (c *Console) Close() { c.stop() }

// live runs a watcher for the console's lifetime: it returns when ctx ends.
func (c *Console) live(watch func(ctx context.Context)) {
	c.life.Add(1)
	go func() {
		defer c.life.Done()
		watch(c.ctx)
	}()
}

// Wait waits, after Close, until the console's watchers have returned and
// its background work has ended: from then on nothing of it uses the
// workflow, whose cache may be closed. Never on the UI goroutine: the
// work may be waiting for it.
func (c *Console) Wait() {
	c.life.Wait()
	c.jobs.wait()
}

// Settle waits until the background work started so far has finished and
// its widget updates are done (tests, screenshots, Options.Settled).
func (c *Console) Settle() { c.jobs.wait() }

// jobs counts the background work under way. Unlike a sync.WaitGroup, work
// may start while someone waits (the window's watchers and tickers start
// theirs at any time): wait returns at a moment when none runs.
type jobs struct {
	mu   sync.Mutex
	idle *sync.Cond
	n    int
}

func (j *jobs) add() {
	j.mu.Lock()
	j.n++
	j.mu.Unlock()
}

func (j *jobs) done() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.n--; j.n == 0 && j.idle != nil {
		j.idle.Broadcast()
	}
}

func (j *jobs) wait() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.idle == nil {
		j.idle = sync.NewCond(&j.mu)
	}
	for j.n > 0 {
		j.idle.Wait()
	}
}

// background runs work off the UI goroutine; apply, if any, runs through
// fyne.Do with its result.
func (c *Console) background(work func(ctx context.Context) func()) {
	c.jobs.add()
	go func() {
		defer c.jobs.done()
		apply := work(c.ctx)
		if apply != nil {
			c.onUI(true, func() { // thread.go
				// What a result does (a reload keeping the row) is
				// never the reviewer's input (claims_away.go).
				c.applyingResult = true
				defer func() { c.applyingResult = false }()
				apply()
			})
		}
	}()
}

// spawn runs work of a screen's own off the UI goroutine (the bulk
// dialog's run), counted as background work: Settle and Wait wait for
// it, so that signing out or quitting never closes the cache under it.
// The work ends with the console's context, as all its work does.
func (c *Console) spawn(work func()) {
	c.jobs.add()
	go func() {
		defer c.jobs.done()
		work()
	}()
}

// apply runs fn as one widget update from the UI goroutine's own code (a
// driver's callback); tests drive the window through it from their loop
// (asUI, thread.go).
func (c *Console) apply(fn func()) { asUI(fn) }

// reload refreshes the strip, the batches, the items and the panel from the
// cache.
func (c *Console) reload() {
	c.refreshViews() // views.go: the shortcut sheet lists them
	c.refreshStrip()
	c.trayNeeds() // tray.go
	c.batches.refresh()
	c.items.refresh()
	c.panel.refresh()
	c.keepWindowStateSoon() // windowstate.go: a kill reopens as she worked
}

// showError shows a headline, with the raw text under Details; Enter or
// Esc closes it (form.go).
func (c *Console) showError(title string, err error) {
	head, details := explain(err)
	if details != "" {
		head += "\n\nDetails: " + details
	}
	f := newDialogForm(c.win, c)
	f.focusFirst(f.defaultButton("OK (Enter)", f.hide))
	f.show(title, wrapped(head), []fyne.CanvasObject{f.def}, 480)
}

// narrowWidth is the window width under which the panel hides itself: at
// 800 pixels it left the table no room for a status and a score.
const narrowWidth = 1000

// onWidth hides the panel when the window becomes narrow, and says so;
// it shows it again when the window is wide again, unless p hid it.
func (c *Console) onWidth(w float32) {
	switch {
	case w < narrowWidth && !c.panelOff:
		c.panelAuto = true
		c.setPanel(false)
		c.strip.say(narrowSay)
	case w >= narrowWidth && c.panelOff && c.panelAuto:
		c.panelAuto = false
		c.setPanel(true)
		if c.strip.pages.Text == narrowSay {
			c.strip.say("")
		}
	}
}

const narrowSay = "The window is narrow: the item panel is hidden (p shows it)."

// widthWatch lays its objects out as a stack and reports its width when
// it changes, once ready says the widths count (nil: always).
type widthWatch struct {
	on    func(float32)
	ready func() bool
	width float32
}

func (l *widthWatch) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
	if size.Width != l.width && size.Width > 0 && (l.ready == nil || l.ready()) {
		l.width = size.Width
		l.on(size.Width)
	}
}

func (l *widthWatch) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objs {
		m = m.Max(o.MinSize())
	}
	return m
}

// togglePanel hides or shows the item panel (p, and the strip's button).
func (c *Console) togglePanel() {
	c.panelAuto = false
	c.setPanel(c.panelOff)
}

func (c *Console) setPanel(on bool) {
	c.panelOff = !on
	if c.panelOff {
		c.right.Trailing.Hide()
		c.right.Offset = 1
	} else {
		c.right.Trailing.Show()
		c.right.Offset = rightOffset
	}
	c.right.Refresh()
	c.strip.panelShown(!c.panelOff)
}

// bindKeys binds the window's canvas shortcuts from windowKeys, the table
// the shortcut sheet is drawn from, so that the two cannot drift apart.
// The plain keys and letters of the same table are dispatched by onKey and
// onRune, which every focusable widget of the window passes on (focus.go).
func (c *Console) bindKeys() {
	cv := c.win.Canvas()
	cv.SetOnTypedKey(func(ev *fyne.KeyEvent) { c.onKey(ev) })
	cv.SetOnTypedRune(func(r rune) { c.onRune(r) })
	for _, k := range windowKeys {
		for _, sc := range k.shortcuts {
			do := k.do
			cv.AddShortcut(sc, func(fyne.Shortcut) { c.sawInput(); do(c) })
		}
	}
	c.addSelectShortcuts() // select.go: the table's clicks with modifiers
	c.watchInput()         // claims_away.go: her input, for the claims
}

func (c *Console) focusSearch() {
	if c.win.Canvas().Overlays().Top() == nil {
		c.win.Canvas().Focus(c.batches.search)
	}
}

// onKey handles a key the focused widget did not take (or any, with none
// focused). Behind a dialog the triage keys do nothing: Escape closes it
// and Enter presses its default button.
func (c *Console) onKey(ev *fyne.KeyEvent) {
	c.sawInput() // claims_away.go
	cv := c.win.Canvas()
	if top := cv.Overlays().Top(); top != nil {
		switch ev.Name {
		case fyne.KeyEscape:
			c.onEnter, c.sheet = nil, nil
			if esc := c.onEscape; esc != nil {
				c.onEscape = nil
				esc()
				return
			}
			top.Hide()
		case fyne.KeyReturn, fyne.KeyEnter:
			if c.onEnter != nil {
				c.onEnter()
			}
		default:
			c.scrollSheet(ev) // shortcuts.go
		}
		return
	}
	switch ev.Name {
	case fyne.KeyUp, fyne.KeyDown, fyne.KeyPageUp, fyne.KeyPageDown, fyne.KeyHome, fyne.KeyEnd, fyne.KeyReturn, fyne.KeyEnter:
		// The items' keys, whatever has the focus (none, as the window
		// opens): the table's own handler, Shift+↑/↓ and the jumps too.
		c.items.onKey(ev)
		return
	}
	if k := namedKey(ev.Name); k != nil { // shortcuts.go: Esc, F5, F1
		k.do(c)
	}
}

// onRune: the one-key commands, from windowKeys (shortcuts.go).
func (c *Console) onRune(r rune) {
	c.sawInput() // claims_away.go
	if c.win.Canvas().Overlays().Top() != nil {
		return
	}
	if k := runeKey(r); k != nil {
		k.do(c)
	}
}
