package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/store"
)

// A cell is cut with an ellipsis only when its text is wider than it is:
// Fyne's ellipsis shapes the text from scratch at every update, fitting or
// not, which on a table of short cells was most of the window's start.
func TestACellIsCutOnlyWhenItsTextIsTooWide(t *testing.T) {
	newTestConsole(t, twoBatches()) // an app, a theme
	l := newTipLabel("")
	if l.Truncation != fyne.TextTruncateEllipsis {
		t.Fatal("a new cell, with no width yet, must cut (a template asks for no width)")
	}
	l.Resize(fyne.NewSize(200, 30))
	l.SetText("selfie.jpg")
	if l.Truncation != fyne.TextTruncateOff || l.truncated() {
		t.Fatalf("a short text in 200 px: truncation %v", l.Truncation)
	}
	l.SetText(strings.Repeat("passport-front-", 10) + ".jpg")
	if l.Truncation != fyne.TextTruncateEllipsis || !l.truncated() {
		t.Fatalf("a long text in 200 px: truncation %v", l.Truncation)
	}
	l.SetText("selfie.jpg")
	l.Resize(fyne.NewSize(30, 30))
	if l.Truncation != fyne.TextTruncateEllipsis {
		t.Fatal("a cell made narrower than its text must cut it")
	}
	l.Resize(fyne.NewSize(400, 30))
	if l.Truncation != fyne.TextTruncateOff {
		t.Fatal("a cell made wide enough again must show the text whole")
	}
}

// The batch list is rebuilt when its rows' heights change (they are set
// before it is drawn); the reviewer keeps the keyboard focus in it and the
// place it was scrolled to.
func TestARefreshOfTheBatchListKeepsItsFocusAndScroll(t *testing.T) {
	wf := twoBatches()
	wf.batches = nil
	for i := range 80 {
		wf.batches = append(wf.batches, store.BatchSummary{ID: fmt.Sprintf("bat_%02d", i), CustomerRef: fmt.Sprintf("CUST-%02d", i),
			CreatedAt: time.Now().Add(-time.Duration(i) * time.Hour), Items: 3, Scored: 1, Errors: 2, AwaitingFile: i % 2})
	}
	c := newTestConsole(t, wf)
	old := c.batches.list
	c.apply(func() {
		c.win.Canvas().Focus(old)
		old.ScrollToOffset(900)
	})
	off := old.GetScrollOffset()
	if off < 800 {
		t.Fatalf("the list did not scroll: offset %v", off)
	}
	// A refresh that changes no row's height keeps the list.
	c.apply(c.batches.refresh)
	c.Settle()
	if c.batches.list != old || old.GetScrollOffset() != off {
		t.Fatal("a refresh with the same heights replaced the list or moved it")
	}
	// One that does (a batch now awaits a file: one more line) builds a
	// new one.
	wf.mu.Lock()
	wf.batches[0].AwaitingFile = 1
	wf.mu.Unlock()
	c.apply(c.batches.refresh)
	c.Settle()
	l := c.batches.list
	if l == old {
		t.Fatal("the refresh kept the old list: its heights would be set row by row on a drawn list")
	}
	if c.win.Canvas().Focused() != l {
		t.Fatalf("focus went to %T", c.win.Canvas().Focused())
	}
	if got := l.GetScrollOffset(); got != off {
		t.Fatalf("scroll offset %v after the refresh, was %v", got, off)
	}
}

// Run hands over once the window's content is built and before it is
// shown (main turns the collector back on there), and only once.
func TestRunCallsBuiltOnceWithTheContentInPlace(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	a := showApp{App: test.NewTempApp(t), shown: new(bool)}
	var calls int
	var content fyne.CanvasObject
	shownAtBuilt := false
	built := func() {
		calls++
		shownAtBuilt = *a.shown
		if ws := a.Driver().AllWindows(); len(ws) > 0 {
			content = ws[len(ws)-1].Content()
		}
	}
	Run(a, workflowOf(twoBatches()), Options{Prefs: a.Preferences(), Built: built})
	if calls != 1 {
		t.Fatalf("Built called %d times, want once", calls)
	}
	if content == nil {
		t.Fatal("Built was called before the window had its content")
	}
	if shownAtBuilt || !*a.shown {
		t.Fatalf("shown when Built was called: %v; shown at all: %v", shownAtBuilt, *a.shown)
	}
}

// showApp records whether a window it made was shown.
type showApp struct {
	fyne.App
	shown *bool
}

func (a showApp) NewWindow(title string) fyne.Window {
	return showWindow{Window: a.App.NewWindow(title), shown: a.shown}
}

type showWindow struct {
	fyne.Window
	shown *bool
}

func (w showWindow) Show()       { *w.shown = true; w.Window.Show() }
func (w showWindow) ShowAndRun() { *w.shown = true; w.Window.ShowAndRun() }
