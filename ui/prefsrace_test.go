package ui

import (
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// watchedPrefs records each write of the window's preferences: whether it
// ran on the UI goroutine (the tests' loop), where Fyne's watcher of the
// preferences file reads it too, and when.
type watchedPrefs struct {
	fyne.Preferences
	mu     sync.Mutex
	writes int
	offUI  []string
	last   time.Time            // the last write but the quit's mark
	at     map[string]time.Time // each key's last write
}

func (p *watchedPrefs) note(k string) {
	off := goroutineID() != uiGoroutine.Load() // the tests' loop (uiloop_test.go)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.writes++
	if p.at == nil {
		p.at = map[string]time.Time{}
	}
	p.at[k] = time.Now()
	if k != prefQuitAt {
		p.last = p.at[k]
	}
	if off {
		p.offUI = append(p.offUI, k)
	}
}

func (p *watchedPrefs) SetFloat(k string, v float64) { p.note(k); p.Preferences.SetFloat(k, v) }
func (p *watchedPrefs) SetString(k string, v string) { p.note(k); p.Preferences.SetString(k, v) }
func (p *watchedPrefs) SetBool(k string, v bool)     { p.note(k); p.Preferences.SetBool(k, v) }
func (p *watchedPrefs) SetInt(k string, v int)       { p.note(k); p.Preferences.SetInt(k, v) }

// Fyne saves its preferences file by truncating and rewriting it, and reads
// it again when its folder changes; a save on another goroutine than the
// reads found the file empty: "Preferences load error: EOF" at the first
// start. The window's state is written on the UI goroutine; and Quit
// closes the window only once Fyne has saved the burst of changes it wrote
// (100 ms after the first), not leaving the second save to run after the
// event loop, where the watcher reads beside it (the same error at quit);
// and it closes right after a save of its own, so that Fyne's save at the
// program's end falls within the 100 ms its watcher ignores.
func TestTheWindowsPreferencesAreWrittenWhereFyneReadsThem(t *testing.T) {
	prefs := &watchedPrefs{Preferences: test.NewTempApp(t).Preferences()}
	c := newTestConsoleWith(t, twoBatches(), Options{Prefs: prefs})
	c.apply(func() { c.batches.all.SetChecked(true) }) // a change of view: its state is kept
	c.Settle()
	prefs.mu.Lock()
	writes, off := prefs.writes, prefs.offUI
	prefs.mu.Unlock()
	if writes == 0 {
		t.Fatal("the window's state was not kept")
	}
	if len(off) > 0 {
		t.Fatalf("preferences written off the UI goroutine: %v", off)
	}
	var closed time.Time
	c.closeWindow = func() { closed = time.Now() }
	c.apply(func() { c.win.Resize(fyne.NewSize(1100, 700)) }) // a state the quit writes
	c.apply(c.quit)
	c.Settle()
	prefs.mu.Lock()
	last := prefs.last
	prefs.mu.Unlock()
	if closed.IsZero() {
		t.Fatal("quit did not close the window")
	}
	if gap := closed.Sub(last); gap < 100*time.Millisecond {
		t.Fatalf("the window closed %v after its state was written: before Fyne saved it all", gap)
	}
	prefs.mu.Lock()
	mark := prefs.at[prefQuitAt]
	prefs.mu.Unlock()
	if gap := closed.Sub(mark); mark.IsZero() || gap > 20*time.Millisecond {
		t.Fatalf("no save of its own right before the window closed (the quit's mark %v before)", gap)
	}
}
