package ui

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/trustscreen/reviewer/review"
)

// loopDriver is Fyne's test driver with the real driver's thread rules
// (fyne.io/fyne/v2/internal/driver/glfw, loop.go): fyne.Do runs what it is
// handed on one goroutine of its own, the event loop, and once the loop
// has ended (end) runs it at once on the caller's goroutine, as the real
// one does after draining its queue. Every canvas refresh is checked as
// the real canvas does (async.EnsureMain): one off the loop's goroutine
// is recorded, with where it came from.
type loopDriver struct {
	fyne.Driver
	fns    chan func()
	id     uint64
	ended  atomic.Bool
	mu     sync.Mutex
	off    []string      // refreshes made off the loop's goroutine
	after  chan struct{} // a function handed over after the end has run
	stopCh chan struct{}
}

func newLoopDriver(inner fyne.Driver) *loopDriver {
	d := &loopDriver{Driver: inner, fns: make(chan func()), after: make(chan struct{}, 64), stopCh: make(chan struct{})}
	started := make(chan struct{})
	go func() {
		d.id = goroutineID()
		close(started)
		for {
			select {
			case f := <-d.fns:
				f()
			case <-d.stopCh:
				return
			}
		}
	}()
	<-started
	return d
}

func (d *loopDriver) DoFromGoroutine(f func(), wait bool) {
	switch {
	case d.ended.Load():
		f() // the drained loop: on the caller's goroutine
		d.after <- struct{}{}
	case goroutineID() == d.id:
		f()
	case wait:
		done := make(chan struct{})
		d.fns <- func() { f(); close(done) }
		<-done
	default:
		go func() { d.fns <- f }()
	}
}

// onLoop runs f on the loop and waits for it.
func (d *loopDriver) onLoop(f func()) { d.DoFromGoroutine(f, true) }

// end ends the loop, as closing the window does.
func (d *loopDriver) end() {
	d.ended.Store(true)
	close(d.stopCh)
}

func (d *loopDriver) CanvasForObject(o fyne.CanvasObject) fyne.Canvas {
	return checkCanvas{Canvas: d.Driver.CanvasForObject(o), d: d}
}

func (d *loopDriver) offLoop() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.off...)
}

type checkCanvas struct {
	fyne.Canvas
	d *loopDriver
}

func (c checkCanvas) Refresh(o fyne.CanvasObject) {
	if goroutineID() != c.d.id {
		pc := make([]uintptr, 12)
		n := runtime.Callers(2, pc)
		frames := runtime.CallersFrames(pc[:n])
		where := ""
		for {
			f, more := frames.Next()
			if where == "" || (f.Function != "" && !containsFyne(f.File)) {
				where = fmt.Sprintf("%s:%d", f.File, f.Line)
				if !containsFyne(f.File) {
					break
				}
			}
			if !more {
				break
			}
		}
		c.d.mu.Lock()
		c.d.off = append(c.d.off, where)
		c.d.mu.Unlock()
	}
	c.Canvas.Refresh(o)
}

func containsFyne(file string) bool {
	for i := 0; i+len("/fyne.io/") <= len(file); i++ {
		if file[i:i+len("/fyne.io/")] == "/fyne.io/" {
			return true
		}
	}
	return false
}

type loopApp struct {
	fyne.App
	d *loopDriver
}

func (a loopApp) Driver() fyne.Driver { return a.d }

// loopConsole is a console in a window whose fyne.Do is the loop's, with
// the loop known as the UI goroutine (as Run records it).
func loopConsole(t *testing.T, wf any) (*Console, *loopDriver) {
	t.Helper()
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	d := newLoopDriver(a.Driver())
	fyne.SetCurrentApp(loopApp{App: a, d: d})
	// This window's UI goroutine is the loop driver's, reached through
	// Fyne's fyne.Do as in the real program, not the package's test loop.
	wasID, wasHand, wasAsUI := uiGoroutine.Load(), handToUI, asUI
	uiGoroutine.Store(d.id)
	handToUI, asUI = fyneDo, d.onLoop
	t.Cleanup(func() {
		uiGoroutine.Store(wasID)
		handToUI, asUI = wasHand, wasAsUI
		if !d.ended.Load() {
			d.end()
		}
	})
	var c *Console
	d.onLoop(func() {
		w := a.NewWindow("loop")
		w.Resize(fyne.NewSize(1280, 800))
		c = NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
		c.reload()
	})
	c.Settle()
	return c, d
}

// gatedConnectivity holds Connectivity until released.
type gatedConnectivity struct {
	*fakeWorkflow
	armed            atomic.Bool
	entered, release chan struct{}
}

func (g *gatedConnectivity) Connectivity(ctx context.Context) (review.Connectivity, error) {
	if g.armed.CompareAndSwap(true, false) {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.fakeWorkflow.Connectivity(ctx)
}

// The strip's redraw (strip.go) whose read of the connection ends after
// the window has closed: Fyne, its loop ended, runs the redraw on the
// job's goroutine. The console drops it instead: no widget of the window
// changes off the UI goroutine. (Before, strip.go's SetText and Refresh
// ran there: "Error in Fyne call thread".)
func TestTheStripIsNotRedrawnOffTheUIGoroutineAfterTheWindowEnds(t *testing.T) {
	g := &gatedConnectivity{fakeWorkflow: &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}},
		entered: make(chan struct{}), release: make(chan struct{})}
	c, d := loopConsole(t, g)
	if off := d.offLoop(); len(off) > 0 {
		t.Fatalf("refreshed off the loop while open: %v", off)
	}
	g.armed.Store(true)
	d.onLoop(c.refreshStrip)
	<-g.entered // the redraw's read is under way
	d.onLoop(c.Close)
	d.end()
	close(g.release)
	<-d.after // the loop-less fyne.Do ran what it was handed
	c.Wait()
	if off := d.offLoop(); len(off) > 0 {
		t.Fatalf("widgets refreshed off the UI goroutine after the window ended: %v", off)
	}
}

// A tooltip that comes due after the window has ended (its timer fires
// on a goroutine of its own) shows nothing: before, tooltip.go built and
// showed its pop-up there.
func TestATooltipDueAfterTheWindowEndsChangesNothing(t *testing.T) {
	c, d := loopConsole(t, &fakeWorkflow{})
	var b *tipButton
	d.onLoop(func() {
		b = newTipButton("Sync", theme.ViewRefreshIcon(), "a tip", nil)
		c.win.SetContent(b)
		b.MouseIn(&desktop.MouseEvent{})
	})
	d.onLoop(c.Close)
	d.end()
	<-d.after // the tooltip's delay ended and Fyne ran its function
	if off := d.offLoop(); len(off) > 0 {
		t.Fatalf("widgets refreshed off the UI goroutine after the window ended: %v", off)
	}
	if b.tip.popup != nil {
		t.Fatal("the tooltip was shown after the window ended")
	}
}
