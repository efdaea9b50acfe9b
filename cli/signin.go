package cli

// Signing in without a terminal, and with one: where the token comes from,
// `reviewer login` and `reviewer logout`, and the command line's side of
// the window's first-start screen (Session).
//
// The token comes from, the first that has one:
//  1. REVIEWER_API_TOKEN_FILE or --token-file;
//  2. REVIEWER_API_TOKEN;
//  3. the system keyring (reviewer login, or the window's sign-in);
//  4. the file the console wrote at sign-in, when the reviewer asked for
//     it because no keyring answered (never written without being asked).
// It never goes to the window's preferences, the cache, a log or the
// screen.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// tokenOrigin is where the token in force came from.
type tokenOrigin int

const (
	fromNone    tokenOrigin = iota
	fromFile                // REVIEWER_API_TOKEN_FILE or --token-file
	fromEnv                 // REVIEWER_API_TOKEN
	fromKeyring             // the system keyring
	fromOwnFile             // the file the console wrote at sign-in (no keyring answered)
)

// keyringURL names, beside the token in the keyring, the API URL it was
// checked at: a command or a window that no flag, variable or saved
// preference points elsewhere goes there, not to the default URL.
const keyringURL = keyring.URLName

// signInTimeout bounds the check of a token: one cheap read, or two on a
// 1.0 service (GET /v1/me answers 404, then a page of one batch).
const signInTimeout = 30 * time.Second

// secrets is the console's keyring.
func (r *runner) secrets() *keyring.Keyring {
	if r.env.Keyring != nil {
		return r.env.Keyring
	}
	return keyring.New(keyring.AppID)
}

// ownTokenFile is where the console writes the token when the reviewer
// asks for a file because no keyring answers: beside the default cache, in
// the console's own folder ("" when the system names no such folder).
func (r *runner) ownTokenFile() string {
	if r.env.TokenFile != "" {
		return r.env.TokenFile
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "trustscreen-reviewer", "token")
}

// resolveToken fills in the token from the keyring, or from the console's
// own file, when neither the environment nor a flag gave one, and notes
// where it came from. A keyring that does not answer is noted
// (keyringErr), not an error: the window offers the file instead.
func (r *runner) resolveToken() error {
	switch {
	case r.g.demo:
		return nil
	case r.g.cfg.Token != "" && (r.tokenFrom == fromKeyring || r.tokenFrom == fromOwnFile):
		return nil // found before (the window's session opens again)
	case r.g.cfg.TokenFile != "":
		r.tokenFrom = fromFile
		return nil
	case r.g.cfg.Token != "":
		r.tokenFrom = fromEnv
		return nil
	}
	r.tokenFrom, r.keyringErr = fromNone, nil
	v, err := r.secrets().Get(keyring.TokenName)
	switch {
	case err == nil:
		tok, err := client.CheckToken("the token kept in the keyring", v)
		if err != nil {
			return fmt.Errorf("%w; run 'reviewer login' again", err)
		}
		r.g.cfg.Token, r.tokenFrom = tok, fromKeyring
		r.useKeptURL()
		return nil
	case !errors.Is(err, keyring.ErrNotFound):
		r.keyringErr = err
	}
	path := r.ownTokenFile()
	if path == "" {
		return nil
	}
	f, fi, err := safefile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "the token file %s that the console wrote at sign-in cannot be read: %v", path, unwrapPath(err))
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	f.Close()
	if err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "the token file %s that the console wrote at sign-in cannot be read: %v", path, unwrapPath(err))
	}
	tok, err := client.CheckToken("the token file "+path, string(b))
	if err != nil {
		return fmt.Errorf("%w; run 'reviewer logout', then sign in again", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		r.g.cfg.Warnings = append(r.g.cfg.Warnings, fmt.Sprintf("the token file %s can be read by other users (mode %04o); run: chmod 600 %s", path, perm, path))
	}
	r.g.cfg.Token, r.tokenFrom = tok, fromOwnFile
	return nil
}

// useKeptURL takes the API URL kept with the token when nothing else
// chose one: no REVIEWER_API_URL, and the URL in force is the default (no
// --api, no saved preference).
func (r *runner) useKeptURL() {
	if v, ok := r.env.Lookup("REVIEWER_API_URL"); (ok && v != "") || r.g.cfg.BaseURL != client.DefaultConfig().BaseURL {
		return
	}
	if u, err := r.secrets().Get(keyringURL); err == nil && u != "" {
		r.g.cfg.BaseURL = u
	}
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// keepToken keeps a checked token in the keyring or, when inFile, in the
// console's own file (0600, in a folder of 0700). It says where.
func (r *runner) keepToken(apiURL string, tok client.Secret, inFile bool) (string, error) {
	if !inFile {
		k := r.secrets()
		if err := k.Set(keyring.TokenName, tok.Reveal()); err != nil {
			return "", err
		}
		if err := k.Set(keyringURL, strings.TrimSpace(apiURL)); err != nil {
			return "", err
		}
		r.g.cfg.Token, r.g.cfg.TokenFile, r.tokenFrom = tok, "", fromKeyring
		return "the system keyring (" + k.Service() + ")", nil
	}
	path := r.ownTokenFile()
	if path == "" {
		return "", errors.New("this system names no folder for the console's own files, so there is no place for a token file")
	}
	if err := writeTokenFile(path, tok); err != nil {
		return "", err
	}
	r.g.cfg.Token, r.g.cfg.TokenFile, r.tokenFrom = tok, "", fromOwnFile
	return "the file " + path + " (only you can read it)", nil
}

// writeTokenFile writes the token to path, mode 0600, through a temporary
// file in the same folder (0700 when the console creates it).
func writeTokenFile(path string, tok client.Secret) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the folder %s for the token file: %v", dir, unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, ".token-*") // 0600
	if err != nil {
		return fmt.Errorf("cannot write the token file in %s: %v", dir, unwrapPath(err))
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := safefile.Private(f); err == nil { // 0600; on Windows an ACL of her alone
		_, err = io.WriteString(f, tok.Reveal()+"\n")
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			return fmt.Errorf("cannot write the token file %s: %v", path, unwrapPath(err))
		}
		return nil
	}
	f.Close()
	return fmt.Errorf("cannot make the token file %s private", path)
}

// forgetToken removes the token the console kept: from the keyring, and
// the file it wrote at sign-in. It says what it removed; a keyring that
// does not answer is an error only when nothing else was removed.
func (r *runner) forgetToken() (removed []string, err error) {
	k := r.secrets()
	kerr := k.Delete(keyring.TokenName)
	switch {
	case kerr == nil:
		removed = append(removed, "the system keyring ("+k.Service()+")")
	case errors.Is(kerr, keyring.ErrNotFound):
		kerr = nil
	}
	if kerr == nil {
		_ = k.Delete(keyringURL) // the URL goes with its token; none kept is fine
	}
	if path := r.ownTokenFile(); path != "" {
		if err := os.Remove(path); err == nil {
			removed = append(removed, "the file "+path)
		} else if !errors.Is(err, os.ErrNotExist) {
			return removed, fmt.Errorf("cannot remove the token file %s: %v", path, unwrapPath(err))
		}
	}
	if r.tokenFrom == fromKeyring || r.tokenFrom == fromOwnFile {
		r.g.cfg.Token, r.tokenFrom = "", fromNone
	}
	if kerr != nil && len(removed) == 0 {
		return nil, kerr
	}
	return removed, nil
}

// checkSignIn asks the service who the token belongs to: GET /v1/me, or
// on a 1.0 service (which does not offer it) a page of one batch, which
// says only that the token is taken. who is "" then.
func checkSignIn(ctx context.Context, cfg client.Config) (who string, err error) {
	api, err := client.New(cfg)
	if err != nil {
		return "", err
	}
	defer api.Close()
	id, _, err := api.Me(ctx)
	if err == nil {
		if id.DisplayName != "" && id.DisplayName != id.Reviewer {
			return safetext.Line(id.DisplayName, safetext.Value) + " (" + safetext.Line(id.Reviewer, safetext.Value) + ")", nil
		}
		return safetext.Line(id.Reviewer, safetext.Value), nil
	}
	if !client.IsNotOffered(err) {
		return "", err
	}
	if _, _, err := api.ListBatches(ctx, time.Time{}, "", 1); err != nil {
		return "", err
	}
	return "", nil
}

// SignInError is a sign-in that failed, in words: wrong URL, not
// reachable, token refused, a certificate the system does not trust.
type SignInError struct {
	Words string
	Err   error
}

func (e *SignInError) Error() string { return e.Words }
func (e *SignInError) Unwrap() error { return e.Err }

// signInProblem says in words why a token could not be checked at apiURL.
func signInProblem(err error, apiURL string) *SignInError {
	at := safetext.Line(apiURL, safetext.Message)
	say := func(format string, args ...any) *SignInError {
		return &SignInError{Words: fmt.Sprintf(format, args...), Err: err}
	}
	if policy.ErrorCode(err) == policy.CodeInvalidInput {
		return say("Wrong URL: %s", policy.ErrorMessage(err))
	}
	e, ok := client.AsError(err)
	if !ok {
		return say("The token could not be checked: %s", describe(err))
	}
	detail := safetext.Line(e.Message, safetext.Message)
	switch {
	case e.Class == client.ClassUntrusted:
		return say("A certificate the system does not trust: %s showed one this computer cannot verify (%s). Nothing was sent. Check the URL, or ask IT to install the certificate's authority on this computer", at, detail)
	case e.Class == client.ClassNotConnected:
		return say("Not reachable: nothing answers at %s (%s). Check the URL and the network", at, detail)
	case e.Class == client.ClassNotStarted || e.Class == client.ClassUnknown:
		return say("Not reachable: %s did not answer in time (%s). Try again, or check the URL", at, detail)
	case e.HTTPStatus == http.StatusUnauthorized || e.HTTPStatus == http.StatusForbidden ||
		e.Code == policy.CodeUnauthenticated || e.Code == policy.CodeForbidden:
		return say("Token refused: the service at %s does not accept this token (HTTP %d). Check that it was copied whole, or ask for a new one", at, e.HTTPStatus)
	case e.HTTPStatus == http.StatusNotFound || e.Code == policy.CodeNotOffered || e.Code == policy.CodeNotFound:
		return say("Wrong URL: %s answers, but not as the screening API (HTTP 404). Give the API's base address, such as https://screening.example.com", at)
	case e.Class == client.ClassBadAnswer:
		return say("Wrong URL: what answers at %s is not the screening API (%s)", at, detail)
	case e.Class == client.ClassRateLimited || e.HTTPStatus >= 500:
		return say("The service at %s could not check the token just now (HTTP %d). Try again in a moment", at, e.HTTPStatus)
	}
	return say("The service at %s did not take the token (HTTP %d: %s)", at, e.HTTPStatus, detail)
}

// signInExit is the exit status of a failed `reviewer login`: 2 for a
// wrong URL, 6 for a token the API refused, 7 for a check that never got
// its answer (nothing was kept; run it again).
func signInExit(err error) int {
	if policy.ErrorCode(err) == policy.CodeInvalidInput {
		return ExitUsage
	}
	if e, ok := client.AsError(err); ok {
		if e.Class == client.ClassAnsweredNo && (e.HTTPStatus == http.StatusUnauthorized || e.HTTPStatus == http.StatusForbidden) {
			return ExitAnswerNo
		}
		return ExitReadFailed
	}
	return ExitFailure
}

// check checks tok against apiURL with this console's configuration.
func (r *runner) check(ctx context.Context, apiURL string, tok client.Secret) (string, error) {
	cfg := r.g.cfg
	cfg.BaseURL, cfg.Token, cfg.TokenFile, cfg.Warnings = strings.TrimSpace(apiURL), tok, "", nil
	if err := cfg.Finish(); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, signInTimeout)
	defer cancel()
	return checkSignIn(ctx, cfg)
}

// signedInAs is the sentence that says who is signed in.
func signedInAs(who, apiURL string) string {
	at := safetext.Line(apiURL, safetext.Message)
	if who == "" {
		return "Signed in to " + at + ": the service takes the token (it does not say whose: a 1.0 service)"
	}
	return "Signed in to " + at + " as " + who
}

// readToken reads the token from standard input: on a terminal after a
// prompt, without echo; otherwise its first line.
func (r *runner) readToken() (client.Secret, error) {
	in := r.env.Stdin
	if in == nil {
		return "", usagef("login reads the token from standard input, and there is none")
	}
	var line string
	if f, ok := in.(*os.File); ok && r.interactive() {
		fmt.Fprintf(r.env.Stderr, "API token for %s (not shown as you type): ", safetext.Line(r.g.cfg.BaseURL, safetext.Message))
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(r.env.Stderr)
		if err != nil {
			return "", fmt.Errorf("reading the token: %v", err)
		}
		line = string(b)
	} else {
		br := bufio.NewReader(io.LimitReader(in, 64<<10))
		s, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return "", fmt.Errorf("reading the token from standard input: %v", err)
		}
		line = s
	}
	tok, err := client.CheckToken("the token read from standard input", line)
	if err != nil {
		return "", usagef("%s", policy.ErrorMessage(err))
	}
	return tok, nil
}

// login is `reviewer login`: the token from standard input (never an
// argument: a command line is visible to every user), checked, kept in the
// keyring (or, with --to-file, in a 0600 file).
func (r *runner) login(args []string) (int, error) {
	fs := r.flags("login")
	toFile := fs.Bool("to-file", false, "keep the token in a file only you can read, at the path shown, instead of the keyring (for a computer with no keyring)")
	if _, err := r.parse(fs, args, 0); err != nil {
		if errors.Is(err, errHelp) {
			return ExitOK, err
		}
		return ExitUsage, usagef("login takes no argument: it reads the token from standard input (echo \"$TOKEN\" | reviewer login)")
	}
	tok, err := r.readToken()
	if err != nil {
		return exitFor(err), err
	}
	ctx, cancel := signalContext()
	defer cancel()
	who, err := r.check(ctx, r.g.cfg.BaseURL, tok)
	if err != nil {
		return signInExit(err), signInProblem(err, r.g.cfg.BaseURL)
	}
	where, err := r.keepToken(r.g.cfg.BaseURL, tok, *toFile)
	if err != nil {
		if keyring.IsUnavailable(err) {
			return ExitFailure, fmt.Errorf("%s checked the token, but %v; nothing was kept. To keep it in a file only you can read (%s, mode 0600), run: reviewer login --to-file",
				safetext.Line(r.g.cfg.BaseURL, safetext.Message), err, r.ownTokenFile())
		}
		return ExitFailure, err
	}
	fmt.Fprintf(r.env.Stdout, "%s. The token is kept in %s.\n", signedInAs(who, r.g.cfg.BaseURL), where)
	if over := r.envTokenName(); over != "" {
		fmt.Fprintf(r.env.Stderr, "reviewer: warning: %s is set here and still wins over what login kept\n", over)
	}
	return ExitOK, nil
}

// logout is `reviewer logout`: the token leaves the keyring (and the file
// the console wrote). The cache stays, so offline review still works.
func (r *runner) logout(args []string) (int, error) {
	fs := r.flags("logout")
	if _, err := r.parse(fs, args, 0); err != nil {
		return exitFor(err), err
	}
	removed, err := r.forgetToken()
	if err != nil {
		return ExitFailure, fmt.Errorf("%v; nothing was removed", err)
	}
	if len(removed) == 0 {
		fmt.Fprintln(r.env.Stdout, "No token was kept by this console (keyring or token file): nothing to remove.")
	} else {
		fmt.Fprintf(r.env.Stdout, "Signed out: the token was removed from %s. The cache stays, so offline review still works.\n", strings.Join(removed, " and "))
	}
	if over := r.envTokenName(); over != "" {
		fmt.Fprintf(r.env.Stderr, "reviewer: warning: %s is set here and still signs this console in\n", over)
	}
	return ExitOK, nil
}

// envTokenName names the variable or flag that gives a token ahead of the
// keyring ("" when none does).
func (r *runner) envTokenName() string {
	switch {
	case r.g.cfg.TokenFile != "":
		return "REVIEWER_API_TOKEN_FILE (--token-file)"
	case r.tokenFrom == fromEnv || (r.tokenFrom == fromNone && r.g.cfg.Token != ""):
		return "REVIEWER_API_TOKEN"
	}
	if v, ok := r.env.Lookup("REVIEWER_API_TOKEN"); ok && v != "" {
		return "REVIEWER_API_TOKEN"
	}
	return ""
}

// Session is the command line's side of the window's sign-in: the
// first-start screen checks and keeps a token through it, the console
// opens its workflow through it, and Preferences signs out through it. It
// owns the workflow it opened (Close).
type Session struct {
	r    *runner
	done func()
	note error // the token kept could not be used (resolveToken)
}

// APIURL is the URL in force (a flag, the environment, the saved one).
func (s *Session) APIURL() string { return s.r.g.cfg.BaseURL }

// TokenFile is where a token file goes when no keyring answers.
func (s *Session) TokenFile() string { return s.r.ownTokenFile() }

// Note says, in words, what the first-start screen should know before
// anything is typed ("" for nothing): why no keyring answered when the
// token was looked for, or why the token kept could not be used.
func (s *Session) Note() string {
	switch {
	case s.note != nil:
		return policy.ErrorMessage(s.note) + ": sign in again to replace it"
	case s.r.keyringErr != nil:
		return s.r.keyringErr.Error() + ". After the check, the token can go to a file only you can read: " + s.r.ownTokenFile()
	}
	return ""
}

// SignedIn reports whether a token is known.
func (s *Session) SignedIn() bool { return s.r.g.cfg.Token != "" || s.r.g.cfg.TokenFile != "" }

// CanSignOut reports whether the token came from what Sign out removes:
// the keyring, or the file the console wrote.
func (s *Session) CanSignOut() bool {
	return s.r.tokenFrom == fromKeyring || s.r.tokenFrom == fromOwnFile
}

// TokenSource says where the token comes from (never what it is).
func (s *Session) TokenSource() string { return s.r.tokenSource() }

// Check checks a typed token against apiURL and says who it belongs to;
// a failure is a *SignInError in words.
func (s *Session) Check(ctx context.Context, apiURL, token string) (string, error) {
	tok, err := client.CheckToken("the token", token)
	if err != nil {
		return "", &SignInError{Words: policy.ErrorMessage(err), Err: err}
	}
	who, err := s.r.check(ctx, apiURL, tok)
	if err != nil {
		return "", signInProblem(err, apiURL)
	}
	return signedInAs(who, apiURL), nil
}

// Keep keeps a checked token, and the URL it was checked at for this
// process (the window saves it for the next start): in the keyring, or in
// the console's own file when inFile. It says where; a keyring that does
// not answer is a keyring.UnavailableError, and nothing is kept.
func (s *Session) Keep(apiURL, token string, inFile bool) (string, error) {
	tok, err := client.CheckToken("the token", token)
	if err != nil {
		return "", err
	}
	where, err := s.r.keepToken(apiURL, tok, inFile)
	if err != nil {
		return "", err
	}
	s.r.g.cfg.BaseURL = strings.TrimSpace(apiURL)
	return where, nil
}

// Open opens the workflow with the token known, closing the one it opened
// before.
func (s *Session) Open() (*review.Service, error) {
	s.Close()
	svc, done, err := s.r.open()
	if err != nil {
		return nil, err
	}
	s.done = done
	return svc, nil
}

// SignOut removes the token from the keyring (and the file the console
// wrote), and says what it removed. The cache stays; the workflow it
// opened stays open until the next Open or Close (the window stops using
// it first).
func (s *Session) SignOut() (string, error) {
	removed, err := s.r.forgetToken()
	if err != nil {
		return "", err
	}
	if len(removed) == 0 {
		return "Signed out; no token was kept by this console.", nil
	}
	return "Signed out: the token was removed from " + strings.Join(removed, " and ") + ". The cache stays.", nil
}

// Close closes the workflow Open opened.
func (s *Session) Close() {
	if s.done != nil {
		s.done()
		s.done = nil
	}
}
