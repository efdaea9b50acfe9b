package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/internal/document/pdftest"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/screenapi"
)

func TestMain(m *testing.M) {
	if os.Getenv(asChildEnv) != "" {
		runAsChild() // cache_test.go: this binary is the command line, run as another user
	}
	if path := os.Getenv("WIPE_HOLD_CACHE"); path != "" {
		beTheOtherConsole(path) // wipe_test.go: this binary is another console with the cache open
	}
	// No test touches the keyring, or the configuration folder, of the
	// person running it: the keyring is go-keyring's mock, and the
	// configuration folder a fresh one.
	keyring.MockInit()
	dir, err := os.MkdirTemp("", "reviewer-cli-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	pdftest.Cleanup() // the PDF renderer render_test.go and files_test.go built, if any
	os.RemoveAll(dir)
	os.Exit(code)
}

const anaToken = "signin-token-ana-0001"

// signin is a console with no token in its environment, its own keyring
// (a service name of its own in the mock) and its own token file path.
type signin struct {
	t       *testing.T
	srv     *screenapi.Server
	env     map[string]string
	ring    *keyring.Keyring
	tokFile string
}

func newSignin(t *testing.T, opts screenapi.Options) *signin {
	t.Helper()
	if opts.Reviewers == nil && opts.Token == "" {
		opts.Reviewers = []screenapi.Reviewer{{Name: "ana", DisplayName: "Ana Lima", Token: anaToken}}
	}
	srv, err := screenapi.Start("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	return &signin{t: t, srv: srv, ring: keyring.New("test." + t.Name()), tokFile: filepath.Join(dir, "conf", "token"),
		env: map[string]string{"REVIEWER_API_URL": srv.URL(), "REVIEWER_DB": filepath.Join(dir, "cache.db"),
			"REVIEWER_RETRY_SLEEP": "1ms", "REVIEWER_TIMEOUT": "15s", "REVIEWER_CONNECT_TIMEOUT": "2s"}}
}

func (s *signin) run(stdin string, args ...string) (int, string, string) {
	s.t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(args, cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin),
		Lookup:  func(k string) (string, bool) { v, ok := s.env[k]; return v, ok },
		Keyring: s.ring, TokenFile: s.tokFile})
	for _, tok := range []string{anaToken, "wrong-token-0000000001"} {
		if strings.Contains(out.String()+errb.String(), tok) {
			s.t.Fatalf("reviewer %s printed the token:\n%s\n%s", strings.Join(args, " "), out.String(), errb.String())
		}
	}
	return code, out.String(), errb.String()
}

func (s *signin) want(code int, stdin string, args ...string) (string, string) {
	s.t.Helper()
	got, out, errs := s.run(stdin, args...)
	if got != code {
		s.t.Fatalf("reviewer %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, out, errs)
	}
	return out, errs
}

func TestLoginKeepsTheTokenInTheKeyringAndLogoutRemovesIt(t *testing.T) {
	s := newSignin(t, screenapi.Options{})
	// Before: no token anywhere; the service refuses the call.
	if _, err := s.ring.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("keyring before login: %v", err)
	}
	out, _ := s.want(0, anaToken+"\n", "login")
	if !strings.Contains(out, "Signed in to "+s.srv.URL()+" as Ana Lima (ana)") || !strings.Contains(out, "the system keyring (test.") {
		t.Fatalf("login said: %s", out)
	}
	if v, err := s.ring.Get(keyring.TokenName); err != nil || v != anaToken {
		t.Fatalf("keyring after login: %q, %v", v, err)
	}
	// A command now signs in with the keyring's token.
	out, _ = s.want(0, "", "me", "--json")
	if !strings.Contains(out, `"reviewer": "ana"`) {
		t.Fatalf("me with the keyring's token: %s", out)
	}
	// With no URL set, a command goes where the token was checked, not to
	// the default URL.
	delete(s.env, "REVIEWER_API_URL")
	out, _ = s.want(0, "", "me", "--json")
	if !strings.Contains(out, `"reviewer": "ana"`) || !strings.Contains(out, "screening service") {
		t.Fatalf("me with no URL set: %s", out)
	}
	s.env["REVIEWER_API_URL"] = s.srv.URL()
	// The token went nowhere else: not the cache, not the token file.
	if b, err := os.ReadFile(s.env["REVIEWER_DB"]); err != nil || bytes.Contains(b, []byte(anaToken)) {
		t.Fatalf("the cache holds the token (or cannot be read: %v)", err)
	}
	if _, err := os.Stat(s.tokFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("login wrote a token file although the keyring answered: %v", err)
	}
	out, _ = s.want(0, "", "logout")
	if !strings.Contains(out, "Signed out: the token was removed from the system keyring") || !strings.Contains(out, "The cache stays") {
		t.Fatalf("logout said: %s", out)
	}
	for _, name := range []string{keyring.TokenName, "api-url"} {
		if _, err := s.ring.Get(name); !errors.Is(err, keyring.ErrNotFound) {
			t.Fatalf("keyring's %s after logout: %v", name, err)
		}
	}
	// The cache stays, offline review works: items reads it.
	if _, err := os.Stat(s.env["REVIEWER_DB"]); err != nil {
		t.Fatalf("logout removed the cache: %v", err)
	}
	s.want(0, "", "items")
	out, _ = s.want(0, "", "logout")
	if !strings.Contains(out, "nothing to remove") {
		t.Fatalf("second logout said: %s", out)
	}
}

// The environment still wins over the keyring.
func TestEnvironmentTokenWinsOverTheKeyring(t *testing.T) {
	s := newSignin(t, screenapi.Options{Reviewers: []screenapi.Reviewer{
		{Name: "ana", DisplayName: "Ana Lima", Token: anaToken},
		{Name: "ben", DisplayName: "Ben Okafor", Token: "signin-token-ben-0001"}}})
	s.want(0, anaToken, "login")
	s.env["REVIEWER_API_TOKEN"] = "signin-token-ben-0001"
	out, _ := s.want(0, "", "me", "--json")
	if !strings.Contains(out, `"reviewer": "ben"`) {
		t.Fatalf("REVIEWER_API_TOKEN did not win over the keyring: %s", out)
	}
	var got cli.Window
	code := cli.Run(nil, cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Keyring: s.ring, TokenFile: s.tokFile,
		Lookup:     func(k string) (string, bool) { v, ok := s.env[k]; return v, ok },
		OpenWindow: func(w cli.Window) error { got = w; return nil }})
	if code != 0 || got.Service == nil || !strings.Contains(got.TokenSource, "REVIEWER_API_TOKEN") || got.SignIn.CanSignOut() {
		t.Fatalf("window with REVIEWER_API_TOKEN: exit %d, source %q", code, got.TokenSource)
	}
	delete(s.env, "REVIEWER_API_TOKEN")
	code = cli.Run(nil, cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Keyring: s.ring, TokenFile: s.tokFile,
		Lookup:     func(k string) (string, bool) { v, ok := s.env[k]; return v, ok },
		OpenWindow: func(w cli.Window) error { got = w; return nil }})
	if code != 0 || got.Service == nil || !strings.Contains(got.TokenSource, "the system keyring") || !got.SignIn.CanSignOut() {
		t.Fatalf("window with the keyring's token: exit %d, source %q", code, got.TokenSource)
	}
}

// Each failure of the check says what it is in words, keeps nothing, and
// exits with the status of its kind.
func TestLoginFailuresInWords(t *testing.T) {
	s := newSignin(t, screenapi.Options{})
	_, _, errs := s.run("wrong-token-0000000001\n", "login")
	if !strings.Contains(errs, "Token refused") {
		t.Fatalf("a refused token: %s", errs)
	}
	s.want(6, "wrong-token-0000000001\n", "login")

	closed := closedPort(t)
	s.env["REVIEWER_API_URL"] = closed
	_, errs = s.want(7, anaToken, "login")
	if !strings.Contains(errs, "Not reachable: nothing answers at "+closed) {
		t.Fatalf("a closed port: %s", errs)
	}

	s.env["REVIEWER_API_URL"] = s.srv.URL() + "/not/the/api"
	_, errs = s.want(7, anaToken, "login")
	if !strings.Contains(errs, "Wrong URL") {
		t.Fatalf("a URL that is not the API: %s", errs)
	}
	s.env["REVIEWER_API_URL"] = "screening.example.com"
	_, errs = s.want(2, anaToken, "login")
	if !strings.Contains(errs, "Wrong URL") {
		t.Fatalf("a URL that is not one: %s", errs)
	}

	ca, err := screenapi.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Leaf("127.0.0.1", time.Now().Add(time.Hour), true)
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv, err := screenapi.StartTLS("127.0.0.1:0", screenapi.Options{Token: anaToken}, cert)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tlsSrv.Close)
	s.env["REVIEWER_API_URL"] = tlsSrv.URL()
	_, errs = s.want(7, anaToken, "login")
	if !strings.Contains(errs, "A certificate the system does not trust") {
		t.Fatalf("an untrusted certificate: %s", errs)
	}
	if _, err := s.ring.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("a failed login kept the token: %v", err)
	}
}

// The token is never an argument, and an empty standard input is refused.
func TestLoginReadsTheTokenOnlyFromStandardInput(t *testing.T) {
	s := newSignin(t, screenapi.Options{})
	_, errs := s.want(2, "", "login", anaToken)
	if !strings.Contains(errs, "standard input") {
		t.Fatalf("a token as an argument: %s", errs)
	}
	_, errs = s.want(2, "", "login")
	if !strings.Contains(errs, "empty") {
		t.Fatalf("no token on standard input: %s", errs)
	}
	if _, err := s.ring.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("keyring: %v", err)
	}
}

// Where no keyring answers, login says so, keeps nothing, and names the
// file it would write; with --to-file it writes it, 0600, and the next
// command reads it.
func TestLoginWithoutKeyringOffersAFile(t *testing.T) {
	s := newSignin(t, screenapi.Options{})
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	t.Cleanup(keyring.MockInit)
	_, errs := s.want(1, anaToken, "login")
	if !strings.Contains(errs, "no keyring answers on this computer") || !strings.Contains(errs, s.tokFile) ||
		!strings.Contains(errs, "reviewer login --to-file") || !strings.Contains(errs, "nothing was kept") {
		t.Fatalf("login with no keyring: %s", errs)
	}
	if _, err := os.Stat(s.tokFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a token file was written without being asked: %v", err)
	}
	out, _ := s.want(0, anaToken, "login", "--to-file")
	if !strings.Contains(out, "the file "+s.tokFile) {
		t.Fatalf("login --to-file said: %s", out)
	}
	fi, err := os.Stat(s.tokFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Dir(s.tokFile)); di.Mode().Perm() != 0o700 {
		t.Fatalf("its folder: %v", di.Mode())
	}
	out, _ = s.want(0, "", "me", "--json")
	if !strings.Contains(out, `"reviewer": "ana"`) {
		t.Fatalf("me with the token file: %s", out)
	}
	out, _ = s.want(0, "", "logout")
	if !strings.Contains(out, "the file "+s.tokFile) {
		t.Fatalf("logout said: %s", out)
	}
	if _, err := os.Stat(s.tokFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("logout left the token file: %v", err)
	}
}

// The window's sign-in, through the session: no token opens it with no
// workflow; a check says who; Keep and Open give a console; SignOut
// removes the token.
func TestWindowSessionSignsInAndOut(t *testing.T) {
	s := newSignin(t, screenapi.Options{})
	var got cli.Window
	env := cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Keyring: s.ring, TokenFile: s.tokFile,
		Lookup: func(k string) (string, bool) { v, ok := s.env[k]; return v, ok },
		OpenWindow: func(w cli.Window) error {
			got = w
			if w.Service != nil || w.SignIn == nil || w.SignIn.SignedIn() {
				t.Fatalf("no token, yet the window got a workflow")
			}
			ctx := context.Background()
			if _, err := w.SignIn.Check(ctx, s.srv.URL(), "wrong-token-0000000001"); err == nil || !strings.Contains(err.Error(), "Token refused") {
				t.Fatalf("check of a wrong token: %v", err)
			}
			who, err := w.SignIn.Check(ctx, s.srv.URL(), anaToken)
			if err != nil || !strings.Contains(who, "Ana Lima") {
				t.Fatalf("check: %q, %v", who, err)
			}
			if where, err := w.SignIn.Keep(s.srv.URL(), anaToken, false); err != nil || !strings.Contains(where, "keyring") {
				t.Fatalf("keep: %q, %v", where, err)
			}
			svc, err := w.SignIn.Open()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Sync.Sync(ctx, nil); err != nil {
				t.Fatalf("sync after sign-in: %v", err)
			}
			if !w.SignIn.CanSignOut() || !strings.Contains(w.SignIn.TokenSource(), "keyring") {
				t.Fatalf("source after sign-in: %q", w.SignIn.TokenSource())
			}
			if say, err := w.SignIn.SignOut(); err != nil || !strings.Contains(say, "keyring") {
				t.Fatalf("sign out: %q, %v", say, err)
			}
			if w.SignIn.SignedIn() {
				t.Fatal("still signed in after sign out")
			}
			return nil
		}}
	if code := cli.Run(nil, env); code != 0 {
		t.Fatalf("window: exit %d: %s", code, env.Stderr)
	}
	if got.SignIn == nil {
		t.Fatal("the window was not opened")
	}
	if _, err := s.ring.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("keyring after sign out: %v", err)
	}
	if _, err := os.Stat(s.env["REVIEWER_DB"]); err != nil {
		t.Fatalf("the cache went with the sign-out: %v", err)
	}
}

// A kept token that cannot be used does not stop a window nobody reads a
// terminal for: it opens on the first-start screen, which says why.
func TestWindowWithAnUnusableKeptTokenSignsInAgain(t *testing.T) {
	s := newSignin(t, screenapi.Options{})
	if err := s.ring.Set(keyring.TokenName, "short"); err != nil {
		t.Fatal(err)
	}
	var got cli.Window
	var stderr bytes.Buffer
	code := cli.Run(nil, cli.Env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Keyring: s.ring, TokenFile: s.tokFile,
		Lookup:     func(k string) (string, bool) { v, ok := s.env[k]; return v, ok },
		OpenWindow: func(w cli.Window) error { got = w; return nil }})
	if code != 0 || got.SignIn == nil || got.Service != nil {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if note := got.SignIn.Note(); !strings.Contains(note, "the token kept in the keyring") || !strings.Contains(note, "sign in again") {
		t.Fatalf("note: %q", note)
	}
}
