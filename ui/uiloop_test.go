package ui

import (
	"runtime"
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// The package's tests drive the window from one goroutine, as Fyne's
// driver does from its event loop: every widget update of a test (its
// c.apply, NewConsole) and every background job's result (onUI, toUI) runs
// on testLoop, one at a time. (Fyne's test driver runs fyne.Do at once on
// the caller's goroutine: a job's result changed widgets beside the test's
// own changes, which a package-wide lock used to keep apart.)
func init() { startUILoop() }

type uiLoop struct {
	fns chan func()
	id  atomic.Uint64
}

func startUILoop() *uiLoop {
	l := &uiLoop{fns: make(chan func(), 1024)}
	l.start()
	handToUI = l.hand
	asUI = l.run
	return l
}

// start runs the loop on a new goroutine, the UI goroutine from then on.
func (l *uiLoop) start() {
	started := make(chan struct{})
	go func() {
		l.id.Store(goroutineID())
		uiGoroutine.Store(l.id.Load())
		close(started)
		for f := range l.fns {
			f()
		}
	}()
	<-started
}

func (l *uiLoop) on() bool { return goroutineID() == l.id.Load() }

// run runs fn on the loop and waits for it (at once when on the loop). A
// t.Fatal in fn ends the loop's goroutine (runtime.Goexit): a new loop
// takes over, and the test's own goroutine ends as t.Fatal would have.
func (l *uiLoop) run(fn func()) {
	if l.on() {
		fn()
		return
	}
	done := make(chan bool)
	l.fns <- func() {
		ok := false
		defer func() {
			if !ok {
				l.start()
			}
			done <- ok
		}()
		fn()
		ok = true
	}
	if !<-done {
		runtime.Goexit()
	}
}

// hand is fyne.Do and fyne.DoAndWait onto the loop. Off the loop both
// wait, as Fyne's test driver's fyne.Do returns once fn has run: a test's
// Settle, which waits for the background work, then finds its results
// drawn. On the loop, fyne.Do queues fn after what runs now.
func (l *uiLoop) hand(wait bool, fn func()) {
	if !wait && l.on() {
		go func() { l.fns <- fn }()
		return
	}
	l.run(fn)
}

// fyneDo is Fyne's own fyne.Do and DoAndWait, for the tests of that path
// (thread_test.go's loop driver).
func fyneDo(wait bool, fn func()) {
	if wait {
		fyne.DoAndWait(fn)
	} else {
		fyne.Do(fn)
	}
}
