package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Run opens the console window in app a and blocks until it is closed. The
// window shows the cache at once and syncs in the background; it follows
// the API and the cache while open (Console.Watch), and looks at the cache
// again whenever it comes back to the foreground.
func Run(a fyne.App, wf Workflow, opts Options) {
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
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, wf, opts)
	w.SetMaster()
	ctx := c.ctx // the window's lifetime: closing it ends the watching
	defer c.Close()
	a.Lifecycle().SetOnEnteredForeground(func() { go c.checkCache(ctx) })
	go c.Watch(ctx)
	if opts.Purge != nil {
		go runDaily(ctx, time.After, purgeFirst, purgeEvery, purgeRetry, opts.Purge)
	}
	go func() {
		// The strip's clock words (a circuit's retry time) move.
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fyne.Do(func() { c.apply(c.refreshStrip) })
			}
		}
	}()
	// What the cache holds is read, and the sync starts, once the window
	// is mapped and drawn (Show draws it before the event loop starts):
	// both run in the background anyway, and would otherwise take
	// the processor (two cores, one of them drawing in software) from the
	// window's first frame.
	a.Lifecycle().SetOnStarted(func() {
		c.Start()
		c.onSync()
		if opts.Settled != nil {
			go func() {
				c.Settle()
				opts.Settled()
			}()
		}
	})
	if opts.Built != nil {
		opts.Built()
	}
	w.ShowAndRun()
	c.ReleaseClaims(2 * time.Second) // claims.go: best effort; expiry covers a crash
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

// loadFont has Fyne load the fonts of a text style, by measuring a text.
func loadFont(st fyne.TextStyle) { fyne.MeasureText("Aa", theme.TextSize(), st) }
