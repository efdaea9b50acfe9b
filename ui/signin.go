package ui

import (
	"context"
	"image/color"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/keyring"
)

// SignIn is what the first-start screen, and Sign out in Preferences, ask
// of the command line (cli.Session is one; main.go wires it). The token
// passes through Check and Keep only: the screen never shows it, and keeps
// it no longer than its password field does.
type SignIn interface {
	// APIURL is the URL to offer; TokenFile where a token file goes when
	// no keyring answers; Note what to say before anything is typed (why
	// no keyring answered, or why the token kept cannot be used; "" for
	// nothing).
	APIURL() string
	TokenFile() string
	Note() string
	// SignedIn reports whether a token is known; CanSignOut whether it
	// came from what SignOut removes (the keyring, the console's file);
	// TokenSource says where it came from.
	SignedIn() bool
	CanSignOut() bool
	TokenSource() string
	// Check asks the service at apiURL whose token it is, and says so in a
	// sentence; its error says in words what went wrong.
	Check(ctx context.Context, apiURL, token string) (string, error)
	// Keep keeps a checked token in the keyring, or with inFile in a
	// 0600 file at TokenFile; it says where. A keyring that does not
	// answer is a keyring.UnavailableError.
	Keep(apiURL, token string, inFile bool) (string, error)
	// Open opens the workflow with the kept token.
	Open() (*Workflow, error)
	// SignOut removes the token kept (the cache stays), and says what it
	// removed.
	SignOut() (string, error)
}

// signInScreen is the window's first-start screen: shown instead of the
// console while no token is known. It takes the API URL and the token,
// checks them, says who is signed in, and keeps the token in the keyring,
// or, where no keyring answers and the reviewer asks for it, in a file only
// she can read at a path it shows. Enter checks; Esc stops a check under
// way and never clears what was typed.
type signInScreen struct {
	win fyne.Window
	si  SignIn
	// saveURL keeps the URL for the next start (nil: not saved).
	saveURL func(string)
	// done opens the console on the workflow signed in to.
	done func(*Workflow)

	url, token *widget.Entry
	check      *widget.Button
	status     *textLabel
	// offer holds the token-file offer, shown when no keyring answered.
	offer     *fyne.Container
	offerText *textLabel
	writeFile *widget.Button
	// proceed opens the console once signed in.
	proceed *widget.Button
	content fyne.CanvasObject

	mu     sync.Mutex
	cancel context.CancelFunc // the check under way, if any
	wf     *Workflow          // the workflow once signed in
	// checkedURL and checkedToken are what the last check accepted.
	checkedURL, checkedToken, checkedWho string

	// afterCheck, when set, is called once a check's outcome is shown
	// (tests).
	afterCheck func()
}

// apply runs a widget update of the screen on the UI goroutine (asUI,
// thread.go).
func (s *signInScreen) apply(fn func()) { asUI(fn) }

// newSignInScreen builds the screen; show puts it in the window.
func newSignInScreen(win fyne.Window, si SignIn, saveURL func(string), done func(*Workflow)) *signInScreen {
	s := &signInScreen{win: win, si: si, saveURL: saveURL, done: done}
	s.url = widget.NewEntry()
	s.url.SetText(si.APIURL())
	s.url.SetPlaceHolder("https://screening.example.com")
	s.url.OnSubmitted = func(string) { s.onCheck() }
	s.token = widget.NewPasswordEntry()
	// No "show" eye: the token never goes to the screen, not even on
	// request (a screenshot, a shared screen).
	s.token.ActionItem = canvas.NewRectangle(color.Transparent)
	s.token.SetPlaceHolder("paste the API token you were given")
	s.token.OnSubmitted = func(string) { s.onCheck() }
	s.check = widget.NewButton("Check and sign in", s.onCheck)
	s.check.Importance = widget.HighImportance
	s.status = newLabel("")
	s.status.Wrapping = fyne.TextWrapWord
	s.offerText = newLabel("")
	s.offerText.Wrapping = fyne.TextWrapWord
	s.writeFile = widget.NewButton("Keep the token in this file", s.onWriteFile)
	s.offer = container.NewVBox(s.offerText, container.NewHBox(s.writeFile))
	s.offer.Hide()
	s.proceed = widget.NewButton("Open the console", s.onProceed)
	s.proceed.Importance = widget.HighImportance
	s.proceed.Hide()

	title := newLabelWithStyle("Sign in to the screening API", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	intro := newLabel(signInIntro)
	intro.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(widget.NewFormItem("API URL", s.url), widget.NewFormItem("API token", s.token))
	if p := si.Note(); p != "" {
		s.say(fullStop("Note: " + p))
	}
	card := container.NewVBox(title, intro, form, container.NewHBox(s.check, s.proceed), s.status, s.offer)
	s.content = container.NewCenter(container.NewGridWrap(fyne.NewSize(620, 460), card))
	return s
}

// signInIntro is the first-start screen's text. It promises the keyring
// only where one answers: the note under it may say that none does.
const signInIntro = "No API token is known on this computer yet. Enter the API address and the token your " +
	"administrator gave you. The console checks them with the service, then keeps the token in the system's " +
	"keyring, or, where no keyring answers, in a file only you can read if you ask for it. It is never shown " +
	"or saved in the preferences."

// show puts the screen in the window, with the keys of the console
// unbound, and focuses the first field.
func (s *signInScreen) show() {
	cv := s.win.Canvas()
	for _, o := range cv.Overlays().List() { // the dialogs of a console that is gone
		cv.Overlays().Remove(o)
	}
	unbindShortcuts(cv)
	cv.SetOnTypedRune(func(rune) {})
	cv.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyEscape:
			s.stopCheck()
		case fyne.KeyReturn, fyne.KeyEnter:
			switch {
			case s.offer.Visible():
				s.onWriteFile()
			case s.proceed.Visible():
				s.onProceed()
			}
		}
	})
	s.win.SetOnDropped(nil)
	s.win.SetContent(s.content)
	cv.Focus(s.url)
}

// say puts a line in the status.
func (s *signInScreen) say(text string) { s.status.SetText(text) }

// onCheck checks the URL and the token with the service.
func (s *signInScreen) onCheck() {
	if s.check.Disabled() {
		return
	}
	apiURL := strings.TrimSpace(s.url.Text)
	tok := s.token.Text
	if err := validateAPIURL(apiURL); err != nil {
		s.say("Wrong URL: give " + err.Error() + ", such as https://screening.example.com.")
		s.win.Canvas().Focus(s.url)
		return
	}
	if strings.TrimSpace(tok) == "" {
		s.say("Paste the API token, then press Enter.")
		s.win.Canvas().Focus(s.token)
		return
	}
	s.offer.Hide()
	s.proceed.Hide()
	s.check.Disable()
	s.say("Checking with " + apiURL + "… (Esc stops)")
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	go func() {
		who, err := s.si.Check(ctx, apiURL, tok)
		stopped := ctx.Err() != nil
		cancel()
		var where string
		if err == nil && !stopped {
			where, err = s.si.Keep(apiURL, tok, false)
		}
		onUI(false, func() { s.checked(apiURL, tok, who, where, err, stopped) })
	}()
}

// checked shows what the check came to.
func (s *signInScreen) checked(apiURL, tok, who, where string, err error, stopped bool) {
	s.mu.Lock()
	s.cancel = nil
	s.mu.Unlock()
	s.check.Enable()
	if s.afterCheck != nil {
		defer s.afterCheck()
	}
	switch {
	case stopped:
		s.say("The check was stopped; nothing was kept. Press Enter to check again.")
		return
	case keyring.IsUnavailable(err):
		s.checkedURL, s.checkedToken, s.checkedWho = apiURL, tok, who
		s.say(strings.Replace(strings.TrimSuffix(who, "."), "Signed in to ", "The token is accepted by ", 1) +
			". But " + err.Error() + ", so it was not kept.")
		s.offerText.SetText("It can go to a file that only you can read (mode 0600) instead: " + s.si.TokenFile() +
			". The console reads it at every start until you sign out, which removes it. Press Enter to keep it there.")
		s.offer.Show()
		s.win.Canvas().Focus(nil) // Enter goes to the screen: keep it in the file
		return
	case err != nil:
		s.say(fullStop(err.Error()))
		var focus fyne.Focusable = s.url
		if strings.HasPrefix(err.Error(), "Token refused") {
			focus = s.token
		}
		s.win.Canvas().Focus(focus)
		return
	}
	s.signedIn(apiURL, who, where)
}

// onWriteFile keeps the checked token in the file the screen showed.
func (s *signInScreen) onWriteFile() {
	if s.checkedToken == "" {
		return
	}
	where, err := s.si.Keep(s.checkedURL, s.checkedToken, true)
	if err != nil {
		s.say(fullStop("The token file could not be written: " + err.Error()))
		return
	}
	s.offer.Hide()
	s.signedIn(s.checkedURL, s.checkedWho, where)
}

// signedIn says who is signed in and where the token is kept, and offers
// the console.
func (s *signInScreen) signedIn(apiURL, who, where string) {
	if s.saveURL != nil {
		s.saveURL(apiURL)
	}
	s.token.SetText("") // the keyring (or the file) has it now
	s.checkedToken = ""
	s.say(strings.TrimSuffix(who, ".") + ". The token is kept in " + where + ". Press Enter to open the console.")
	s.check.Hide()
	s.proceed.Show()
	s.win.Canvas().Focus(nil)
}

// onProceed opens the console.
func (s *signInScreen) onProceed() {
	wf, err := s.si.Open()
	if err != nil {
		s.say(fullStop("Signed in, but the console cannot open: " + err.Error()))
		return
	}
	s.mu.Lock()
	s.wf = wf
	s.mu.Unlock()
	s.done(wf)
}

// stopCheck stops a check under way (Esc): nothing else.
func (s *signInScreen) stopCheck() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// fullStop ends s with a full stop.
func fullStop(s string) string {
	s = strings.TrimSpace(s)
	if s != "" && !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// unbindShortcuts removes the console's keyboard shortcuts from the
// window's canvas, so that none of them reaches a console that is gone.
// Fyne lists no canvas's shortcuts: every combination the console may
// bind is removed by name (removing one never bound does nothing).
func unbindShortcuts(cv fyne.Canvas) {
	mods := []fyne.KeyModifier{fyne.KeyModifierShortcutDefault, fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift,
		fyne.KeyModifierAlt, fyne.KeyModifierShift, fyne.KeyModifierControl, fyne.KeyModifierControl | fyne.KeyModifierShift,
		fyne.KeyModifierShortcutDefault | fyne.KeyModifierAlt, fyne.KeyModifierSuper}
	var keys []fyne.KeyName
	for r := 'A'; r <= 'Z'; r++ {
		keys = append(keys, fyne.KeyName(string(r)))
	}
	for r := '0'; r <= '9'; r++ {
		keys = append(keys, fyne.KeyName(string(r)))
	}
	keys = append(keys, fyne.KeyF1, fyne.KeyF2, fyne.KeyF3, fyne.KeyF4, fyne.KeyF5, fyne.KeyF6, fyne.KeyF7, fyne.KeyF8,
		fyne.KeyF9, fyne.KeyF10, fyne.KeyF11, fyne.KeyF12, fyne.KeyUp, fyne.KeyDown, fyne.KeyLeft, fyne.KeyRight,
		fyne.KeyReturn, fyne.KeyEnter, fyne.KeyEscape, fyne.KeySpace, fyne.KeyDelete, fyne.KeyBackspace, fyne.KeyTab,
		fyne.KeySlash, fyne.KeyHome, fyne.KeyEnd, fyne.KeyPageUp, fyne.KeyPageDown)
	for _, m := range mods {
		for _, k := range keys {
			cv.RemoveShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: m})
		}
	}
}
