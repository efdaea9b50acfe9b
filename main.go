// Command reviewer is TrustScreen Reviewer: a console for the compliance
// reviewers who triage what a KYC document-fraud pre-screen flagged or could
// not check. With no command it opens the window; see `reviewer help`.
package main

import (
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"github.com/trustscreen/reviewer/assets"
	"github.com/trustscreen/reviewer/cli"
	_ "github.com/trustscreen/reviewer/internal/plainlocale" // before Fyne reads the locale
	"github.com/trustscreen/reviewer/ui"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Lookup: os.LookupEnv, Stdin: os.Stdin,
		OpenWindow: openWindow, Saved: func(k string) string { return theApp().Preferences().String(k) }}))
}

var fyneApp fyne.App

// theApp creates the Fyne app only when the window is wanted.
func theApp() fyne.App {
	if fyneApp == nil {
		fyneApp = app.NewWithID("com.trustscreen.reviewer")
		fyneApp.SetIcon(assets.Icon)
	}
	return fyneApp
}

func openWindow(w cli.Window) error {
	prefs := theApp().Preferences()
	ui.Run(theApp(), w.Service, ui.Options{Demo: w.Demo, APIURL: w.Config.BaseURL, TokenSource: w.TokenSource,
		Save: func(name, api string) { prefs.SetString(cli.PrefReviewer, name); prefs.SetString(cli.PrefAPIURL, api) }})
	return nil
}
