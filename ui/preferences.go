package ui

import (
	"errors"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// Preference keys of the window.
const (
	prefTheme       = "theme"        // system, light or dark
	prefAutoAdvance = "auto_advance" // "off" to stay on an item after acting
	prefLastFolder  = "last_folder"  // where the last replacement came from
	prefNotify      = "notify"       // "off": no notifications (notify.go)
	prefHideToTray  = "hide_to_tray" // "on": closing the window hides it to the tray (tray.go)
)

// themeChoices are the theme preference's values and their words.
var themeChoices = []struct{ value, label string }{
	{"system", "As the system says"}, {"light", "Light"}, {"dark", "Dark"},
}

// Preferences are the window's own preferences (theme, auto-advance, the
// last folders) and the dialog that shows and edits them, with what it
// only shows: the reviewer's name, the API URL (kept for the next start)
// and where the token comes from.
type Preferences struct {
	kept           fyne.Preferences // nil: the current app's
	apiURL         string
	tokenSource    string
	reviewerSource string
	saveAPIURL     func(apiURL string) // nil: not saved
	// reviewer says the reviewer's name, and whether the service gave it.
	reviewer func() (name string, fromService bool)
	// saved is called after a save with a line to show ("" for none).
	saved func(say string)
	// signOut removes the token and returns to the first-start screen
	// (nil: the token comes from the environment, or the demo's).
	signOut func()
	// keptDocuments is the row on documents kept for offline review (nil,
	// or it returns nil: none are kept by this workflow; kept.go).
	keptDocuments func(f *dialogForm) *widget.FormItem
	// localData is the row that removes all local data (nil, or it
	// returns nil: not offered; wipe.go).
	localData func(f *dialogForm) *widget.FormItem
	// notifyEnvOff: REVIEWER_NOTIFY=off, which the setting cannot undo;
	// hasTray: the system has a tray to hide the window to.
	notifyEnvOff, hasTray bool
}

func newPreferences(opts Options, reviewer func() (string, bool), saved func(string)) *Preferences {
	return &Preferences{kept: opts.Prefs, apiURL: opts.APIURL, tokenSource: opts.TokenSource,
		reviewerSource: opts.ReviewerSource, saveAPIURL: opts.SaveAPIURL, reviewer: reviewer, saved: saved, signOut: opts.SignOut,
		notifyEnvOff: opts.NotifyOff, hasTray: opts.Tray != nil}
}

// store is where the preferences are kept.
func (p *Preferences) store() fyne.Preferences {
	if p.kept != nil {
		return p.kept
	}
	return fyne.CurrentApp().Preferences()
}

// autoAdvance: after an action, go on to the next item that needs the
// reviewer.
func (p *Preferences) autoAdvance() bool {
	return p.store().StringWithFallback(prefAutoAdvance, "on") != "off"
}

// show opens the preferences dialog over win.
func (p *Preferences) show(win fyne.Window) {
	name, fromService := p.reviewer()
	who := newLabel(name)
	who.TextStyle.Bold = true
	f := newDialogForm(win, nil)
	api := f.entry()
	api.SetText(p.apiURL)
	api.Validator = validateAPIURL
	var tok fyne.CanvasObject = wrapped(p.tokenSource)
	if p.signOut != nil {
		out := f.button("Sign out", func() { p.confirmSignOut(win, f.hide) })
		tok = container.NewBorder(nil, nil, nil, out, tok)
	}
	var labels []string
	for _, t := range themeChoices {
		labels = append(labels, t.label)
	}
	th := f.choice(labels, nil)
	cur := p.store().StringWithFallback(prefTheme, "system")
	for _, t := range themeChoices {
		if t.value == cur {
			th.SetSelected(t.label)
		}
	}
	adv := f.check("After an action, go to the next item that needs me", nil)
	adv.SetChecked(p.autoAdvance())
	notify := f.check("Notify me of new work, and of actions that did not go through", nil)
	notify.SetChecked(p.store().StringWithFallback(prefNotify, "on") != "off")
	var hide *formCheck
	if p.hasTray {
		hide = f.check("Closing the window hides it to the tray", nil)
		hide.SetChecked(p.hideToTray())
	}
	source := p.reviewerSource
	if source == "" {
		source = "the system user"
	}
	if fromService {
		source = "the screening service (the name it gives your token)"
	}
	items := []*widget.FormItem{
		widget.NewFormItem("Reviewer", who),
		widget.NewFormItem("API URL", api),
		widget.NewFormItem("API token", tok),
		widget.NewFormItem("Theme", th),
		widget.NewFormItem("Triage", adv),
		widget.NewFormItem("Notifications", notify),
	}
	items[len(items)-1].HintText = "at most one a minute; the strip says the same line"
	if p.notifyEnvOff {
		notify.Disable()
		items[len(items)-1].HintText = "off: REVIEWER_NOTIFY=off; the strip still says the line"
	}
	if hide != nil {
		items = append(items, widget.NewFormItem("Tray", hide))
	}
	items[0].HintText = "from " + source + "; the audit trail names it. Not edited here: start with --reviewer NAME or set REVIEWER_NAME."
	items[1].HintText = "applies at the next start; REVIEWER_API_URL or --api take precedence"
	items[2].HintText = "REVIEWER_API_TOKEN_FILE and REVIEWER_API_TOKEN win over the keyring; the token is never shown or saved here"
	if p.signOut != nil {
		items[2].HintText = "Sign out removes it from there and returns to the sign-in screen; the cache stays"
	}
	for _, row := range []func(*dialogForm) *widget.FormItem{p.keptDocuments, p.localData} {
		if row == nil {
			continue
		}
		if it := row(f); it != nil {
			items = append(items, it)
		}
	}
	save := f.defaultButton("Save (Enter)", func() {
		if validateAPIURL(api.Text) != nil {
			return
		}
		f.hide()
		theme := "system"
		for _, t := range themeChoices {
			if t.label == th.Selected {
				theme = t.value
			}
		}
		p.saveDesk(notify.Checked, hide != nil && hide.Checked)
		p.save(api.Text, theme, adv.Checked)
	})
	api.OnChanged = func(s string) {
		if validateAPIURL(s) != nil {
			save.Disable()
		} else {
			save.Enable()
		}
	}
	api.OnChanged(api.Text)
	f.show("Preferences", widget.NewForm(items...), []fyne.CanvasObject{f.cancelButton("Cancel (Esc)"), save}, 660)
	api.cursorToEnd()
}

// hideToTray: closing the window hides it to the tray (only with a tray).
func (p *Preferences) hideToTray() bool {
	return p.hasTray && p.store().String(prefHideToTray) == "on"
}

// saveDesk keeps the notification and tray choices.
func (p *Preferences) saveDesk(notify, hideToTray bool) {
	kept := p.store()
	if !p.notifyEnvOff {
		kept.SetString(prefNotify, map[bool]string{true: "on", false: "off"}[notify])
	}
	if p.hasTray {
		kept.SetString(prefHideToTray, map[bool]string{true: "on", false: "off"}[hideToTray])
	}
}

// confirmSignOut asks before signing out: the token leaves the keyring,
// and signing in again needs it. The cache, and what it has not sent, stay.
func (p *Preferences) confirmSignOut(win fyne.Window, hidePrefs func()) {
	msg := newLabel("The API token is removed from where it is kept: " + p.tokenSource + ".\n" +
		"Signing in again needs the token. The cache stays: its batches can still be reviewed offline, " +
		"and queued actions go out after the next sign-in.")
	msg.Wrapping = fyne.TextWrapWord
	f := newDialogForm(win, nil)
	out := f.defaultButton("Sign out (Enter)", func() {
		f.hide()
		hidePrefs()
		p.signOut()
	})
	f.show("Sign out?", msg, []fyne.CanvasObject{f.cancelButton("Stay signed in (Esc)"), out}, 560)
}

// save applies the theme and the triage choice now and keeps them, and the
// API URL for the next start.
func (p *Preferences) save(apiURL, themeName string, autoAdvance bool) {
	if validateAPIURL(apiURL) != nil {
		return
	}
	kept := p.store()
	kept.SetString(prefTheme, themeName)
	kept.SetString(prefAutoAdvance, map[bool]string{true: "on", false: "off"}[autoAdvance])
	if a := fyne.CurrentApp(); a != nil {
		a.Settings().SetTheme(newTheme(themeName))
	}
	say := ""
	if strings.TrimSpace(apiURL) != p.apiURL {
		if p.saveAPIURL != nil {
			p.saveAPIURL(strings.TrimSpace(apiURL))
		}
		say = "The new API URL applies the next time the console starts."
	}
	if p.saved != nil {
		p.saved(say)
	}
}

// validateAPIURL accepts an absolute https or http URL, and says so; the
// client checks the rest when it starts (plain http only to a loopback
// host, unless REVIEWER_ALLOW_INSECURE_HTTP is set).
func validateAPIURL(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("an absolute https:// URL (or http:// to this computer)")
	}
	return nil
}
