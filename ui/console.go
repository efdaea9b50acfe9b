// Package ui is the console window (fyne.io/fyne/v2). Each screen is a
// struct holding its widgets, built by a constructor, with named onXxx
// handlers. The window never talks HTTP or SQL: it calls the reviewer's
// workflow through the small Workflow interface, always off the UI
// goroutine, and touches widgets only through fyne.Do. It does not import
// Fyne's app driver, so its widgets run headless under fyne.io/fyne/v2/test.
package ui

import (
	"context"
	"io"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"

	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Workflow is what the window needs of the reviewer's workflow; a
// *review.Service is one.
type Workflow interface {
	Sync(ctx context.Context, progress func(review.SyncProgress)) (review.SyncProgress, error)
	Flush(ctx context.Context) (review.FlushResult, error)
	Status(ctx context.Context) (review.Status, error)
	Batches(ctx context.Context, search string, limit int) ([]store.BatchSummary, error)
	Items(ctx context.Context, f store.ItemFilter) ([]review.ItemView, error)
	Item(ctx context.Context, id string) (review.Detail, error)
	Resubmit(ctx context.Context, itemID string) (review.Result, error)
	RequestFile(ctx context.Context, itemID, message string) (review.Result, error)
	ReplaceFile(ctx context.Context, itemID, path string) (review.Result, error)
	Cancel(ctx context.Context, actionID int64) (store.Action, error)
	ExportCSV(ctx context.Context, w io.Writer, batchID string) (int, error)
	Reviewer() string
	SetReviewer(name string)
}

// Options describe the console's surroundings.
type Options struct {
	Demo        bool   // show the demo-data mark
	APIURL      string // shown in preferences
	TokenSource string // where the token comes from (never the token)
	// Save keeps the preferences for the next start (nil: not saved).
	Save func(reviewer, apiURL string)
	Now  func() time.Time
}

// Console is the main window's content and its screens.
type Console struct {
	win  fyne.Window
	wf   Workflow
	opts Options

	strip   *statusStrip
	batches *batchList
	items   *itemTable
	panel   *itemPanel

	jobs sync.WaitGroup // background work, for Settle
	// applyMu serialises widget updates. Fyne's driver runs them all on
	// its one UI goroutine anyway; the headless test driver runs them on
	// the calling goroutine, so without this two could overlap there.
	applyMu sync.Mutex

	mu         sync.Mutex
	syncCancel context.CancelFunc
}

// batchLimit is how many of the newest batches the list shows.
const batchLimit = 500

// NewConsole builds the console into win.
func NewConsole(win fyne.Window, wf Workflow, opts Options) *Console {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Console{win: win, wf: wf, opts: opts}
	c.strip = newStatusStrip(c)
	c.batches = newBatchList(c)
	c.items = newItemTable(c)
	c.panel = newItemPanel(c)

	right := container.NewHSplit(c.items.content, c.panel.content)
	right.Offset = 0.705
	main := container.NewHSplit(c.batches.content, right)
	main.Offset = 0.155
	win.SetContent(container.NewBorder(c.strip.content, nil, nil, nil, main))
	c.bindKeys()
	return c
}

// Start shows what the cache holds at once, then syncs in the background.
func (c *Console) Start() {
	c.reload()
	c.onSync()
}

// Settle waits until the background work started so far has finished and
// its widget updates are done (tests, screenshots).
func (c *Console) Settle() { c.jobs.Wait() }

// background runs work off the UI goroutine; apply, if any, runs through
// fyne.Do with its result.
func (c *Console) background(work func(ctx context.Context) func()) {
	c.jobs.Add(1)
	go func() {
		defer c.jobs.Done()
		apply := work(context.Background())
		if apply != nil {
			fyne.DoAndWait(func() { c.apply(apply) })
		}
	}()
}

func (c *Console) apply(fn func()) {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	fn()
}

// reload refreshes the strip, the batches, the items and the panel from the
// cache.
func (c *Console) reload() {
	c.strip.refresh()
	c.batches.refresh()
	c.items.refresh()
	c.panel.refresh()
}

// showError shows one clear sentence, never a stack trace.
func (c *Console) showError(title string, err error) {
	dialog.ShowInformation(title, sentence(err), c.win)
}

func (c *Console) bindKeys() {
	cv := c.win.Canvas()
	cv.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if top := cv.Overlays().Top(); top != nil {
			// A dialog is open: the triage keys must not act behind it.
			if ev.Name == fyne.KeyEscape {
				top.Hide()
			}
			return
		}
		switch ev.Name {
		case fyne.KeyUp:
			c.items.move(-1)
		case fyne.KeyDown:
			c.items.move(1)
		case fyne.KeyReturn, fyne.KeyEnter:
			c.items.open()
		}
	})
	cv.SetOnTypedRune(func(r rune) {
		if cv.Overlays().Top() != nil {
			return
		}
		switch r {
		case 'r':
			c.panel.onResubmit()
		case 'f':
			c.panel.onRequestFile()
		}
	})
	cv.AddShortcut(&fyneShortcutCtrlF, func(fyne.Shortcut) { c.win.Canvas().Focus(c.batches.search) })
}
