package ui

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
)

// Run opens the console window in app a and blocks until it is closed. The
// window shows the cache at once and syncs in the background; every few
// seconds it refreshes the connection strip (a circuit's retry time moves).
func Run(a fyne.App, wf Workflow, opts Options) {
	title := "TrustScreen Reviewer"
	if opts.Demo {
		title += " (demo data)"
	}
	a.Settings().SetTheme(compactTheme{})
	w := a.NewWindow(title)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, wf, opts)
	w.SetMaster()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fyne.Do(c.strip.refresh)
			}
		}
	}()
	c.Start()
	w.ShowAndRun()
}
