// Command reviewer is TrustScreen Reviewer: a console for the compliance
// reviewers who triage what a KYC document-fraud pre-screen flagged or could
// not check. With no command it opens the window; see `reviewer help`.
package main

import (
	_ "embed"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/trustscreen/reviewer/assets"
	"github.com/trustscreen/reviewer/cli"
	_ "github.com/trustscreen/reviewer/internal/plainlocale" // before Fyne reads the locale
	"github.com/trustscreen/reviewer/ui"
)

// fyneAppToml is the one place of the console's name, app id, version and
// build (Fyne's packager reads it too).
//
//go:embed FyneApp.toml
var fyneAppToml []byte

// meta is FyneApp.toml, read once when first needed (the window, the
// version, wipe), not at every command's start; a file that lacks a field
// fails the build's tests (TestFyneAppTomlIsComplete), not a reviewer's
// start.
var meta = sync.OnceValue(func() cli.AppMeta {
	m, _ := cli.ParseAppMeta(fyneAppToml)
	return m
})

func main() {
	if cli.OpensWindow(os.Args[1:]) {
		ui.ScanSystemFonts() // beside the cache's opening, not inside the window's first measure
	} else {
		// Fyne's GLFW driver locks the main goroutine to the main thread in
		// its init, for the window's event loop. A command has no window:
		// with the lock, every goroutine hand-off from the main goroutine
		// (go-sqlite3, net/http) is a switch of OS threads. Undo it.
		runtime.UnlockOSThread()
	}
	os.Exit(cli.Run(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Lookup: os.LookupEnv, Stdin: os.Stdin,
		OpenWindow: openWindow, Saved: func(k string) string { return theApp(false).Preferences().String(k) },
		Meta: meta}))
}

var fyneApp fyne.App

// theApp creates the Fyne app only when the window is wanted. The demo
// keeps its preferences apart from real use (its own app id).
func theApp(demo bool) fyne.App {
	if fyneApp == nil {
		id := appID()
		if demo {
			id += ".demo"
		}
		app.SetMetadata(appMetadata(meta(), id))
		fyneApp = app.NewWithID(id)
		fyneApp.SetIcon(assets.WindowIcon)
	}
	return fyneApp
}

// appMetadata is what `fyne build` would compile into the binary from
// FyneApp.toml, its migrations included. Without them, a plain `go build`
// has Fyne check the thread of every widget update by taking a stack
// trace: about two thirds of the panel's update for a ↓ in the item list
// (docs/performance.md). The console keeps the promise the migration
// makes: every widget update runs on the UI goroutine (ui/thread.go).
func appMetadata(m cli.AppMeta, id string) fyne.AppMetadata {
	return fyne.AppMetadata{ID: id, Name: m.Details.Name, Version: m.Details.Version, Build: m.Details.Build,
		Migrations: m.Migrations}
}

// appID is FyneApp.toml's app id; the demo's adds ".demo".
func appID() string {
	if id := meta().Details.ID; id != "" {
		return id
	}
	return cli.DefaultAppID
}

func openWindow(w cli.Window) error {
	var built func()
	if os.Getenv("GOGC") == "" {
		// The window lives all day on a live heap of about 11 MB, most of
		// it the fonts Fyne parses (a set per text style). The default
		// GOGC=100 lets the heap grow to twice that between collections;
		// half the headroom costs a collection every 10 MB allocated,
		// which a reviewer's scrolling does not notice (docs/performance.md).
		//
		// Until the window is built the collector is off: building it is
		// most of that heap arriving at once, and a collector pacing a
		// heap that small ran a dozen times over it, a tenth of the
		// window's start (docs/performance.md). It collects once, after.
		debug.SetGCPercent(-1)
		built = func() { debug.SetGCPercent(50) }
	}
	// Starting leaves garbage behind (the fonts' parse tables, the first
	// rows read), and the heap holds its freed pages for minutes before
	// the runtime's scavenger returns them. Once the first read and sync
	// are over, collect once and return them to the system (about 3 MB of
	// the idle window's resident memory), and the C heap's too
	// (trimCHeap; docs/performance.md).
	settled := func() {
		debug.FreeOSMemory()
		trimCHeap()
	}
	a := theApp(w.Demo)
	prefs := a.Preferences()
	opts := ui.Options{Demo: w.Demo, APIURL: w.Config.BaseURL, TokenSource: w.TokenSource,
		ReviewerSource: w.ReviewerSource, ActionLimit: w.Config.Timeout, Prefs: prefs, Built: built, Settled: settled, Warnings: w.Warnings, WipeAtExit: w.WipeAtExit,
		DocumentLimits: w.DocumentLimits, SyncEvery: w.Desk.SyncEvery, NotifyOff: w.Desk.NotifyOff,
		SaveAPIURL: func(api string) {
			if !w.Demo {
				prefs.SetString(cli.PrefAPIURL, api)
			}
		}}
	if d, ok := a.(desktop.App); ok && trayHost() {
		opts.Tray = d // trayhost_*.go: only where a tray shows it
	}
	var wf *ui.Workflow // nil: no token known, the window signs in first
	if w.Service != nil {
		wf = ui.ServiceWorkflow(w.Service)
	}
	if w.SignIn != nil {
		opts.SignIn = signIn{w.SignIn}
	}
	ui.Run(a, wf, opts)
	return nil
}

// signIn is the command line's session as the window's sign-in: its
// workflow as the window's Workflow.
type signIn struct{ *cli.Session }

func (s signIn) Open() (*ui.Workflow, error) {
	svc, err := s.Session.Open()
	if err != nil {
		return nil, err
	}
	return ui.ServiceWorkflow(svc), nil
}
