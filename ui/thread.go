package ui

import (
	"runtime"
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// The UI goroutine. Fyne wants every widget change on the goroutine its
// event loop runs on; work on any other goroutine (a background job's
// result, a watcher, a timer, a callback from the workflow) hands its
// widget changes over through fyne.Do. One thing fyne.Do does not say:
// once the loop has ended (the window was closed: Fyne drains its queue
// and stops), Fyne runs what it is handed at once, on the caller's own
// goroutine. A strip redraw or a tooltip that came due while a closing
// window finished (after drawing a large PDF page, say) then changed
// widgets off the UI goroutine ("Error in Fyne call thread", from
// strip.go and tooltip.go). onUI is the one door: what it hands over runs
// on the UI goroutine, one widget update at a time, or not at all.
//
// There is no lock of the package's widgets: every widget update runs on
// the one UI goroutine. Fyne's test driver runs fyne.Do at once on the
// caller's goroutine, which would let a background job's result change
// widgets beside the test's own changes; the package's tests instead hand
// both to one goroutine of their own (uiloop_test.go), through handToUI
// and asUI, as Fyne's driver hands them to its event loop.

// uiGoroutine is the goroutine Fyne's event loop runs on, as Run found it
// (0: not known, as under Fyne's test driver, which runs fyne.Do on the
// caller's goroutine by design).
var uiGoroutine atomic.Uint64

// onUI hands fn to the UI goroutine as one widget update (toUI).
func onUI(wait bool, fn func()) { toUI(wait, fn) }

// toUI hands fn to the UI goroutine (handToUI). When Fyne runs it anywhere
// else (its loop has ended), fn is dropped: the window it would change is
// gone.
func toUI(wait bool, fn func()) {
	handToUI(wait, func() {
		if !onUIGoroutine() {
			return
		}
		fn()
	})
}

// handToUI hands fn to the UI goroutine: fyne.Do, or with wait
// fyne.DoAndWait (the tests: their loop).
var handToUI = func(wait bool, fn func()) {
	if wait {
		fyne.DoAndWait(fn)
	} else {
		fyne.Do(fn)
	}
}

// asUI runs fn as a widget update from code that runs on the UI goroutine
// already under Fyne's driver (Run, NewConsole, the driver's callbacks):
// at once (the tests: on their loop, and waits).
var asUI = func(fn func()) { fn() }

// onUI is the console's door: what it hands over is also dropped once the
// console has ended (Close: the window closed, or she signed out).
func (c *Console) onUI(wait bool, fn func()) {
	onUI(wait, func() {
		if c.ctx.Err() != nil {
			return
		}
		fn()
	})
}

// onUIGoroutine reports whether the caller runs on the UI goroutine (true
// when it is not known).
func onUIGoroutine() bool {
	id := uiGoroutine.Load()
	return id == 0 || goroutineID() == id
}

// goroutineID is the caller's goroutine's number, from the first line of
// its stack ("goroutine 1 [running]:"), as Fyne tells its own.
func goroutineID() uint64 {
	var buf [32]byte
	n := runtime.Stack(buf[:], false)
	var id uint64
	for i := len("goroutine "); i < n && buf[i] >= '0' && buf[i] <= '9'; i++ {
		id = id*10 + uint64(buf[i]-'0')
	}
	return id
}
