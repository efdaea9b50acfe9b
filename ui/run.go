package ui

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/typesetting/fontscan"
)

// Run opens the console window in app a and blocks until it is closed. The
// window shows the cache at once and syncs in the background; it follows
// the API and the cache while open (Console.Watch), and looks at the cache
// again whenever it comes back to the foreground. With no workflow (no
// token known) it shows the first-start screen (signin.go) until the
// reviewer has signed in; Sign out in Preferences returns to it.
func Run(a fyne.App, wf *Workflow, opts Options) {
	title := "TrustScreen Reviewer"
	if opts.Demo {
		title += " (demo data)"
	}
	if opts.Prefs == nil {
		opts.Prefs = a.Preferences()
	}
	a.Settings().SetTheme(newTheme(opts.Prefs.String(prefTheme)))
	// Fyne sets its default theme up on first use, without a lock; our
	// theme's fonts come from it, and two goroutines are about to ask.
	theme.DefaultTheme()
	fonts := loadFonts()
	w := a.NewWindow(title)
	// The bold style's fonts, the other style the window draws, once GLFW
	// has opened the display: beside the regular style's, not after them.
	loadFont(fyne.TextStyle{Bold: true})
	<-fonts // before anything else measures text
	// The size she left it at (windowstate.go).
	w.Resize(keptWindowSize(opts.Prefs))
	sc := &screens{win: w, opts: opts}
	if wf != nil {
		sc.console(wf)
	} else {
		sc.signIn("")
	}
	w.SetMaster()
	w.SetCloseIntercept(sc.onClose)
	sc.watchForeground(a.Lifecycle())
	// What the cache holds is read, and the sync starts, once the window
	// is mapped and drawn (Show draws it before the event loop starts):
	// both run in the background anyway, and would otherwise take
	// the processor (two cores, one of them drawing in software) from the
	// window's first frame.
	a.Lifecycle().SetOnStarted(func() {
		// The event loop runs on this goroutine: onUI (thread.go) drops
		// what Fyne runs anywhere else once the loop has ended.
		uiGoroutine.Store(goroutineID())
		if !sc.started {
			// The PDF renderer's code, compiled well after the start
			// (prepare.go), so that the first PDF does not wait for it.
			prepareRenderer(opts.DocumentLimits, time.After)
		}
		sc.started = true
		if c := sc.c; c != nil {
			sc.start(c)
		}
	})
	if opts.Built != nil {
		opts.Built()
	}
	w.ShowAndRun()
	if c := sc.c; c != nil {
		c.Close()
		c.ReleaseClaims(2 * time.Second) // claims.go: best effort; expiry covers a crash
	}
}

// screens switches the window between the first-start screen and the
// console (UI goroutine only).
type screens struct {
	win     fyne.Window
	opts    Options
	c       *Console      // nil while signing in
	screen  *signInScreen // the first-start screen, while it shows
	started bool          // the app's event loop runs: a new console starts at once
	settled bool          // Options.Settled has been arranged
	// switched, when set, is called after each switch of screens (tests).
	switched func()
}

// console builds the console on wf in the window, with its background
// watching; it starts at once when the app already runs.
func (s *screens) console(wf *Workflow) {
	opts := s.opts
	if si := opts.SignIn; si != nil {
		opts.TokenSource, opts.APIURL = si.TokenSource(), si.APIURL()
		if si.CanSignOut() {
			opts.SignOut = s.signOut
		}
	}
	c := NewConsole(s.win, wf, opts)
	s.c, s.screen = c, nil
	if s.switched != nil {
		defer s.switched()
	}
	// Its lifetime: closing the window or signing out ends the watching.
	c.live(c.Watch)
	c.live(func(ctx context.Context) {
		runDaily(ctx, time.After, purgeFirst, purgeEvery, purgeRetry, func(ctx context.Context) error {
			_, err := wf.Retention.Purge(ctx, -1, false) // retention.go: each its own retention
			return err
		})
	})
	if s.opts.SyncEvery >= 0 { // negative: no background sync
		c.live(c.syncOnSchedule) // background.go
	}
	c.live(func(ctx context.Context) {
		// The strip's clock words (a circuit's retry time) move.
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				c.onUI(false, c.refreshStrip)
			}
		}
	})
	if s.started {
		s.start(c)
	}
}

// watchForeground looks at the cache again whenever the window comes back
// to the foreground, and tells the console's claims when it leaves and
// comes back (claims_away.go: out of the foreground counts towards away).
func (s *screens) watchForeground(lc fyne.Lifecycle) {
	lc.SetOnEnteredForeground(func() {
		if c := s.c; c != nil {
			c.apply(func() { c.foreground(true) })
			c.background(func(ctx context.Context) func() { c.checkCache(ctx); return nil })
		}
	})
	lc.SetOnExitedForeground(func() {
		if c := s.c; c != nil {
			c.apply(func() { c.foreground(false) })
		}
	})
}

// start reads the cache into a console and syncs; after the first start's
// work has ended, Options.Settled.
func (s *screens) start(c *Console) {
	c.Start()
	c.onSync()
	if s.opts.Settled != nil && !s.settled {
		s.settled = true
		go func() {
			c.Settle()
			s.opts.Settled()
		}()
	}
}

// onClose is closing the window: it quits (asking first when something
// has not gone out), or hides the window to the tray when she chose so
// and there is one (tray.go).
func (s *screens) onClose() {
	switch c := s.c; {
	case c == nil:
		s.win.Close()
	case c.settings.hideToTray():
		c.keepWindowState()
		s.win.Hide()
	default:
		c.onQuit()
	}
}

// signIn shows the first-start screen, with a line said first ("": none).
func (s *screens) signIn(say string) {
	si := newSignInScreen(s.win, s.opts.SignIn, s.opts.SaveAPIURL, s.console)
	if say != "" {
		si.say(say)
	}
	si.show()
	s.screen = si
	if s.switched != nil {
		s.switched()
	}
}

// signOut ends the console, removes the token (the cache stays) and shows
// the first-start screen.
func (s *screens) signOut() {
	c := s.c
	if c == nil {
		return
	}
	s.c = nil
	c.Close()
	if t := s.opts.Tray; t != nil { // signed out: nothing to count or send
		t.SetSystemTrayMenu(fyne.NewMenu("TrustScreen Reviewer", fyne.NewMenuItem("Show", s.win.Show)))
	}
	// Her claim goes back while the token still works, on this goroutine:
	// the claim's state is the panel's (at most 2 s, on a service that hangs).
	c.ReleaseClaims(2 * time.Second)
	go func() {
		// Its watchers and work end (its context is done) before the
		// first-start screen can open the next workflow, which closes this
		// one's cache: nothing of it reaches a cache being closed.
		c.Wait()
		say, err := s.opts.SignIn.SignOut() // the keyring may take a moment: off the UI goroutine
		if err != nil {
			say = fullStop("Sign out could not remove the token: " + err.Error())
		}
		toUI(false, func() { s.signIn(say) })
	}()
}

// loadFonts has Fyne load the fonts of the regular text style on another
// core while GLFW opens the display for the window (docs/performance.md).
// Fyne parses a set of fonts per style on its first use (the theme's and
// the system's for the language), and scans the system's fonts on the
// first use of all, under its lock. Two styles loading at once share only
// Fyne's synchronised caches, each under its own key, and the theme (set
// up before); "Aa" is shaped with the theme's own faces. Nothing else
// measures text until the channel is closed.
func loadFonts() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		loadFont(fyne.TextStyle{})
	}()
	return done
}

// ScanSystemFonts starts, on a goroutine of its own, the scan of the
// system's fonts that the window's first text measure would otherwise
// make (Fyne falls back to those fonts for what its own lack). The scan is
// go-text's index of the fonts: it reads fontconfig's settings, looks in
// every font folder, parses the fonts that are new since its index file
// (every font, the first time), parses one to check the index and writes
// the file again, at every start. main calls this as soon as it knows
// that the window opens, so that the scan runs beside the process's own
// start and the cache's opening, on the other core; Fyne's own call waits
// for it or finds it done (go-text builds the index once per process).
// TestTheWindowScansTheSystemFontsOnce holds both to that. When the scan
// fails (no font at all), Fyne's call gets an empty index rather than the
// error: either way nothing falls back to the system's fonts.
func ScanSystemFonts() { go scanSystemFonts() }

func scanSystemFonts() error {
	_, err := fontscan.SystemFonts(quietFontLog{}, "") // "": where Fyne's call has it (its user cache folder)
	return err
}

// quietFontLog drops go-text's notes on the fonts it scans (the folders it
// looked in, a font it could not read), as Fyne's own logger does.
type quietFontLog struct{}

func (quietFontLog) Printf(string, ...any) {}

// loadFont has Fyne load the fonts of a text style, by measuring a text.
func loadFont(st fyne.TextStyle) { fyne.MeasureText("Aa", theme.TextSize(), st) }
