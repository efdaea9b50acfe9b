package ui

import (
	"bytes"
	"context"
	"errors"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/screenapi"
)

const signinToken = "ui-signin-token-ana-0001"

// cliSignIn is main.go's wiring of the command line's session.
type cliSignIn struct{ *cli.Session }

func (s cliSignIn) Open() (*Workflow, error) {
	svc, err := s.Session.Open()
	if err != nil {
		return nil, err
	}
	return ServiceWorkflow(svc), nil
}

// signInRig is a window with no token known: the command line's real
// session (go-keyring's mock keyring, a service name of the test's own),
// the reference service on loopback with reviewer ana.
type signInRig struct {
	t       *testing.T
	srv     *screenapi.Server
	ring    *keyring.Keyring
	tokFile string
	db      string
	sess    *cli.Session
	win     fyne.Window
	app     fyne.App
	saved   []string // the API URLs kept for the next start
	logs    *lockedBuffer
}

// lockedBuffer collects the log while the console's goroutines write to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newSignInRig(t *testing.T) *signInRig {
	t.Helper()
	keyring.MockInit()
	t.Setenv("LANG", "en_US.UTF-8")
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Batches: 3,
		Reviewers: []screenapi.Reviewer{{Name: "ana", DisplayName: "Ana Lima", Token: signinToken}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	r := &signInRig{t: t, srv: srv, ring: keyring.New("test.ui." + t.Name()), tokFile: filepath.Join(dir, "conf", "token"),
		db: filepath.Join(dir, "cache.db"), logs: &lockedBuffer{}}
	env := map[string]string{"REVIEWER_API_URL": "http://127.0.0.1:1", "REVIEWER_DB": r.db, "REVIEWER_RETRY_SLEEP": "1ms",
		"REVIEWER_TIMEOUT": "15s", "REVIEWER_CONNECT_TIMEOUT": "2s", "REVIEWER_NAME": "ana"}
	var stderr bytes.Buffer
	code := cli.Run(nil, cli.Env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Keyring: r.ring, TokenFile: r.tokFile,
		Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		OpenWindow: func(w cli.Window) error {
			if w.Service != nil || w.SignIn == nil {
				t.Fatalf("no token known, yet the window got a workflow")
			}
			r.sess = w.SignIn
			return nil
		}})
	if code != 0 || r.sess == nil {
		t.Fatalf("the window was not opened: exit %d: %s", code, stderr.String())
	}
	t.Cleanup(r.sess.Close)
	r.app = test.NewTempApp(t)
	r.win = test.NewTempWindow(t, nil)
	r.win.Resize(fyne.NewSize(1280, 800))
	log.SetOutput(r.logs)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	return r
}

// screens puts the window's screens up as Run does, on the sign-in screen.
func (r *signInRig) screens() (*screens, chan struct{}) {
	switched := make(chan struct{}, 4)
	s := &screens{win: r.win, opts: Options{Prefs: r.app.Preferences(), SignIn: cliSignIn{r.sess},
		SaveAPIURL: func(u string) { r.saved = append(r.saved, u) }}, switched: func() { switched <- struct{}{} }}
	s.signIn("")
	<-switched
	r.t.Cleanup(func() {
		if s.c != nil {
			s.c.Close()
			s.c.Wait()
		}
	})
	return s, switched
}

// submit types into the screen's fields and presses Enter in the token
// field, and waits for the check's outcome.
func (r *signInRig) submit(s *signInScreen, apiURL, token string) string {
	r.t.Helper()
	done := make(chan struct{}, 1)
	s.apply(func() {
		s.afterCheck = func() { done <- struct{}{} }
		s.url.SetText(apiURL)
		s.token.SetText(token)
		s.token.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		r.t.Fatalf("the check of %s did not end", apiURL)
	}
	var say string
	s.apply(func() { s.afterCheck, say = nil, s.status.Text })
	return say
}

// noToken fails when the token shows anywhere in the window, a log line or
// a kept URL.
func (r *signInRig) noToken() {
	r.t.Helper()
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		var text string
		switch w := o.(type) {
		case *widget.Label:
			text = w.Text
		case *textLabel:
			text = w.Text
		case *widget.Entry:
			if !w.Password { // a password field draws dots; its renderer is walked below
				text = w.Text
			}
			for _, c := range test.TempWidgetRenderer(r.t, w).Objects() {
				walk(c)
			}
		case *widget.Button:
			text = w.Text
		case *canvas.Text:
			text = w.Text
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.TempWidgetRenderer(r.t, w).Objects() {
				walk(c)
			}
		}
		if strings.Contains(text, signinToken) {
			r.t.Fatalf("the token shows in the window: %q", text)
		}
	}
	walk(r.win.Content())
	if strings.Contains(r.logs.String(), signinToken) || strings.Contains(strings.Join(r.saved, " "), signinToken) {
		r.t.Fatalf("the token reached a log line or the preferences")
	}
}

func closedLoopbackURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// The first-start screen's states: focus, each failure in words, who is
// signed in, and the console once she goes on.
func TestSignInScreenStates(t *testing.T) {
	r := newSignInRig(t)
	s, switched := r.screens()
	sc := s.screen
	if sc == nil || r.win.Content() != sc.content {
		t.Fatal("with no token the window does not show the first-start screen")
	}
	if r.win.Canvas().Focused() != sc.url {
		t.Fatalf("the first field is not focused: %v", r.win.Canvas().Focused())
	}
	if !sc.token.Password {
		t.Fatal("the token field is not a password field")
	}
	if _, plain := sc.token.ActionItem.(*canvas.Rectangle); !plain {
		t.Fatalf("the token field has a button that can show the token: %T", sc.token.ActionItem)
	}

	// No token typed: the check does not go out.
	sc.url.SetText(r.srv.URL())
	sc.url.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if !strings.Contains(sc.status.Text, "Paste the API token") || r.win.Canvas().Focused() != sc.token {
		t.Fatalf("no token: %q, focus %v", sc.status.Text, r.win.Canvas().Focused())
	}
	// A URL that is not one.
	sc.url.SetText("screening.example.com")
	sc.token.SetText(signinToken)
	sc.token.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if !strings.HasPrefix(sc.status.Text, "Wrong URL") {
		t.Fatalf("not a URL: %q", sc.status.Text)
	}
	// A URL where something answers, not the API.
	if say := r.submit(sc, r.srv.URL()+"/elsewhere", signinToken); !strings.HasPrefix(say, "Wrong URL") {
		t.Fatalf("not the API: %q", say)
	}
	// Nothing listens.
	closed := closedLoopbackURL(t)
	if say := r.submit(sc, closed, signinToken); !strings.HasPrefix(say, "Not reachable: nothing answers at "+closed) {
		t.Fatalf("closed port: %q", say)
	}
	// The token refused: the token field gets the focus back, and what
	// was typed stays (Esc clears nothing either).
	if say := r.submit(sc, r.srv.URL(), "wrong-token-000000000001"); !strings.HasPrefix(say, "Token refused") {
		t.Fatalf("wrong token: %q", say)
	}
	if r.win.Canvas().Focused() != sc.token {
		t.Fatalf("after a refused token the focus is on %v", r.win.Canvas().Focused())
	}
	r.win.Canvas().(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if sc.url.Text != r.srv.URL() || sc.token.Text != "wrong-token-000000000001" {
		t.Fatal("Esc cleared what was typed")
	}
	// A certificate the system does not trust.
	ca, err := screenapi.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Leaf("127.0.0.1", time.Now().Add(time.Hour), true)
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv, err := screenapi.StartTLS("127.0.0.1:0", screenapi.Options{Token: signinToken}, cert)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tlsSrv.Close)
	if say := r.submit(sc, tlsSrv.URL(), signinToken); !strings.HasPrefix(say, "A certificate the system does not trust") {
		t.Fatalf("untrusted certificate: %q", say)
	}
	if _, err := r.ring.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("a failed check kept the token: %v", err)
	}
	if sc.proceed.Visible() {
		t.Fatal("the console is offered before a check passed")
	}

	// The right URL and token: who is signed in, the token in the keyring.
	say := r.submit(sc, r.srv.URL(), signinToken)
	if !strings.Contains(say, "Signed in to "+r.srv.URL()+" as Ana Lima (ana)") || !strings.Contains(say, "system keyring") {
		t.Fatalf("signed in: %q", say)
	}
	if v, err := r.ring.Get(keyring.TokenName); err != nil || v != signinToken {
		t.Fatalf("keyring after sign-in: %v", err)
	}
	if !sc.proceed.Visible() || sc.token.Text != "" {
		t.Fatal("after sign-in: the console is not offered, or the token field still holds the token")
	}
	if len(r.saved) != 1 || r.saved[0] != r.srv.URL() {
		t.Fatalf("API URL kept for the next start: %q", r.saved)
	}
	r.noToken()
	// Esc does nothing here either; Enter opens the console.
	r.win.Canvas().(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if !sc.proceed.Visible() {
		t.Fatal("Esc undid the sign-in")
	}
	r.win.Canvas().(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn})
	<-switched
	if s.c == nil || s.screen != nil {
		t.Fatal("Enter did not open the console")
	}
	if !strings.Contains(s.c.opts.TokenSource, "system keyring") || s.c.settings.signOut == nil {
		t.Fatalf("the console's token source %q, sign out offered %v", s.c.opts.TokenSource, s.c.settings.signOut != nil)
	}
	r.noToken()
}

// Sign out (Preferences) removes the token from the keyring and returns to
// the first-start screen; the cache stays.
func TestSignOutReturnsToTheFirstStartScreen(t *testing.T) {
	r := newSignInRig(t)
	s, switched := r.screens()
	if say := r.submit(s.screen, r.srv.URL(), signinToken); !strings.Contains(say, "Signed in") {
		t.Fatalf("sign in: %q", say)
	}
	s.screen.onProceed()
	<-switched
	c := s.c
	if _, err := c.wf.Sync.Sync(c.ctx, nil); err != nil {
		t.Fatalf("sync once signed in: %v", err)
	}
	// Preferences offers Sign out, beside where the token comes from.
	c.apply(func() { c.settings.show(r.win) })
	found := false
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Button:
			found = found || w.Text == "Sign out"
		case *formButton:
			found = found || w.Text == "Sign out"
		case *fyne.Container:
			for _, x := range w.Objects {
				walk(x)
			}
		case fyne.Widget:
			for _, x := range test.TempWidgetRenderer(t, w).Objects() {
				walk(x)
			}
		}
	}
	c.Settle() // the kept documents' row fills in off the UI goroutine
	c.apply(func() {
		for _, o := range r.win.Canvas().Overlays().List() {
			walk(o)
		}
	})
	if !found {
		t.Fatal("Preferences offers no Sign out")
	}
	// The console's watchers end before the first-start screen comes: the
	// next sign-in closes the cache they use.
	release, returned := make(chan struct{}), make(chan struct{})
	c.live(func(ctx context.Context) {
		<-ctx.Done()
		<-release
		close(returned)
	})
	c.settings.signOut()
	select {
	case <-switched:
		t.Fatal("the first-start screen came while a watcher of the console still ran")
	case <-time.After(200 * time.Millisecond): // this wait can only miss the defect, never fail a good build
	}
	close(release)
	<-switched
	select {
	case <-returned:
	default:
		t.Fatal("the first-start screen came before the console's watcher returned")
	}
	if s.c != nil || s.screen == nil || r.win.Content() != s.screen.content {
		t.Fatal("Sign out did not return to the first-start screen")
	}
	if c.ctx.Err() == nil {
		t.Fatal("the console's background work goes on after sign out")
	}
	if !strings.Contains(s.screen.status.Text, "Signed out: the token was removed from the system keyring") {
		t.Fatalf("the screen says: %q", s.screen.status.Text)
	}
	if _, err := r.ring.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("keyring after sign out: %v", err)
	}
	if fi, err := os.Stat(r.db); err != nil || fi.Size() == 0 {
		t.Fatalf("the cache went with the sign-out: %v", err)
	}
	if r.win.Canvas().Focused() != s.screen.url {
		t.Fatal("the first field is not focused after sign out")
	}
	// Signing in again opens the console on the same cache.
	if say := r.submit(s.screen, r.srv.URL(), signinToken); !strings.Contains(say, "Signed in") {
		t.Fatalf("sign in again: %q", say)
	}
	s.screen.onProceed()
	<-switched
	batches, err := s.c.wf.Listing.Batches(s.c.ctx, "", 10)
	if err != nil || len(batches) == 0 {
		t.Fatalf("the cache after signing in again: %d batches, %v", len(batches), err)
	}
}

// Where no keyring answers, the screen says so in words, keeps nothing,
// and offers a 0600 file at a path it shows; only on request.
func TestSignInWithoutKeyringOffersAFile(t *testing.T) {
	r := newSignInRig(t)
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	t.Cleanup(keyring.MockInit)
	s, switched := r.screens()
	sc := s.screen
	say := r.submit(sc, r.srv.URL(), signinToken)
	if !strings.Contains(say, "no keyring answers on this computer") || !strings.Contains(say, "not kept") {
		t.Fatalf("no keyring: %q", say)
	}
	if !sc.offer.Visible() || !strings.Contains(sc.offerText.Text, r.tokFile) || !strings.Contains(sc.offerText.Text, "0600") {
		t.Fatalf("the file is not offered: %v %q", sc.offer.Visible(), sc.offerText.Text)
	}
	if sc.proceed.Visible() {
		t.Fatal("the console is offered with the token kept nowhere")
	}
	if _, err := os.Stat(r.tokFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a token file was written without being asked: %v", err)
	}
	r.noToken()
	r.win.Canvas().(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn})
	fi, err := os.Stat(r.tokFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", fi, err)
	}
	if !strings.Contains(sc.status.Text, "the file "+r.tokFile) || !sc.proceed.Visible() {
		t.Fatalf("after the file: %q", sc.status.Text)
	}
	sc.onProceed()
	<-switched
	if s.c == nil || !strings.Contains(s.c.opts.TokenSource, r.tokFile) || s.c.settings.signOut == nil {
		t.Fatal("the console did not open on the token file")
	}
	s.c.settings.signOut()
	<-switched
	if _, err := os.Stat(r.tokFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("sign out left the token file: %v", err)
	}
}

// A token from the environment (or the demo's) is not the console's to
// remove: Preferences says where it comes from and offers no Sign out.
func TestPreferencesOfferNoSignOutForAnEnvironmentToken(t *testing.T) {
	c := newTestConsoleWith(t, &fakeWorkflow{}, Options{TokenSource: "the environment (REVIEWER_API_TOKEN)"})
	c.apply(func() { c.settings.show(c.win) })
	var texts []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Button:
			texts = append(texts, w.Text)
		case *widget.Label:
			texts = append(texts, w.Text)
		case *textLabel:
			texts = append(texts, w.Text)
		case *fyne.Container:
			for _, x := range w.Objects {
				walk(x)
			}
		case fyne.Widget:
			for _, x := range test.TempWidgetRenderer(t, w).Objects() {
				walk(x)
			}
		}
	}
	for _, o := range c.win.Canvas().Overlays().List() {
		walk(o)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "the environment (REVIEWER_API_TOKEN)") || strings.Contains(all, "Sign out") {
		t.Fatalf("Preferences with a token from the environment: %s", all)
	}
}

// Esc stops a check under way (a service that never answers), and keeps
// what was typed.
func TestEscStopsACheck(t *testing.T) {
	r := newSignInRig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	t.Cleanup(func() {
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
	})
	s, _ := r.screens()
	sc := s.screen
	done := make(chan struct{}, 1)
	sc.afterCheck = func() { done <- struct{}{} }
	sc.url.SetText("http://" + ln.Addr().String())
	sc.token.SetText(signinToken)
	sc.token.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	select {
	case c := <-accepted: // the check's request is out, and waits
		accepted <- c
	case <-time.After(60 * time.Second):
		t.Fatal("the check never connected")
	}
	if !sc.check.Disabled() || !strings.Contains(sc.status.Text, "Esc stops") {
		t.Fatalf("while checking: %q", sc.status.Text)
	}
	r.win.Canvas().(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Esc did not stop the check")
	}
	if !strings.Contains(sc.status.Text, "The check was stopped; nothing was kept") || sc.check.Disabled() {
		t.Fatalf("after Esc: %q", sc.status.Text)
	}
	if sc.token.Text != signinToken || sc.url.Text != "http://"+ln.Addr().String() {
		t.Fatal("Esc cleared what was typed")
	}
	if _, err := r.ring.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("a stopped check kept the token: %v", err)
	}
}

// The first-start text promises the keyring only where one answers: the
// note under it may say that none does.
func TestSignInTextDoesNotPromiseAKeyringThatMayNotAnswer(t *testing.T) {
	if strings.Contains(signInIntro, "keyring;") || !strings.Contains(signInIntro, "where no keyring answers") {
		t.Fatalf("the intro promises the keyring: %q", signInIntro)
	}
}
