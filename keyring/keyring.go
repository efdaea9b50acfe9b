// Package keyring keeps the console's secrets (the API token today, the key
// of kept documents later) in the operating system's keyring: the Secret
// Service on Linux, the Keychain on macOS, the Credential Manager on
// Windows, through github.com/zalando/go-keyring. It is the only package
// that imports that module, so that the dependency has one door and one
// set of words for its failures.
//
// A secret is named (Get/Set/Delete of a name) under one service, the
// app ID of FyneApp.toml (AppID), which is how the system's keyring
// manager lists it. Where no keyring answers (a headless machine, no
// Secret Service on the session bus) every call returns an
// *UnavailableError that says so in words; the caller decides what to
// offer instead (a 0600 file at a path it shows), never this package and
// never silently.
package keyring

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	gokeyring "github.com/zalando/go-keyring"
)

// AppID is the console's app ID, as FyneApp.toml says (a test holds them
// equal): the keyring's service name for its secrets.
const AppID = "com.trustscreen.reviewer"

// TokenName names the API token among the console's secrets.
const TokenName = "api-token"

// URLName names the API's address a token was checked at.
const URLName = "api-url"

// DocumentsKeyName names the key of the documents kept for offline review
// (internal/keptdocs).
const DocumentsKeyName = "documents-key"

// names are every secret the console keeps (Forget).
var names = []string{TokenName, URLName, DocumentsKeyName}

// ErrNotFound: the keyring answered, and holds no secret of that name.
var ErrNotFound = errors.New("the keyring holds no such secret")

// UnavailableError says that no keyring answered, and why, in words.
type UnavailableError struct {
	Err error // what the keyring's library said
}

func (e *UnavailableError) Error() string {
	return "no keyring answers on this computer (" + describe(e.Err) + ")"
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// IsUnavailable reports whether err says that no keyring answered.
func IsUnavailable(err error) bool {
	var u *UnavailableError
	return errors.As(err, &u)
}

// Keyring is the console's secrets under one service name.
type Keyring struct {
	service string
	// mem, when set, holds the secrets in this process instead of the
	// system's keyring (InMemory), under memMu.
	mem   map[string]string
	memMu sync.Mutex
}

// New returns the secrets kept under service (AppID in the console; a
// test uses a name of its own).
func New(service string) *Keyring { return &Keyring{service: service} }

// InMemory returns secrets that live in this process only and go with
// it: the demo's, whose cache is thrown away when its window closes, so
// that its secrets neither reach nor take the system keyring's.
func InMemory(service string) *Keyring {
	return &Keyring{service: service, mem: map[string]string{}}
}

// Service is the service name the secrets are kept under.
func (k *Keyring) Service() string { return k.service }

// InProcess reports whether the secrets live in this process only
// (InMemory).
func (k *Keyring) InProcess() bool { return k.mem != nil }

// mu serialises the calls: go-keyring's providers keep no lock of their
// own (its mock is a bare map), and a Secret Service that asks the person
// to unlock the keyring should be asked once at a time.
var mu sync.Mutex

// mocked says that MockInit or MockInitWithError replaced the system's
// keyring (under mu).
var mocked bool

// errNoSessionBus: on Linux the Secret Service is asked over the session
// bus; with none running, go-keyring's D-Bus library would try to start one
// (dbus-launch), leaving a daemon behind for a question that has no answer.
var errNoSessionBus = errors.New("no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist")

// reachable checks, before go-keyring is asked, that there is a keyring
// to ask (under mu).
func reachable() error {
	if mocked || runtime.GOOS != "linux" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return nil
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = "/run/user/" + strconv.Itoa(os.Getuid())
	}
	if _, err := os.Stat(filepath.Join(dir, "bus")); err == nil {
		return nil
	}
	return errNoSessionBus
}

// Get returns the named secret: ErrNotFound when the keyring holds none,
// an *UnavailableError when no keyring answered.
func (k *Keyring) Get(name string) (string, error) {
	if k.mem != nil {
		k.memMu.Lock()
		defer k.memMu.Unlock()
		v, ok := k.mem[name]
		if !ok {
			return "", ErrNotFound
		}
		return v, nil
	}
	mu.Lock()
	defer mu.Unlock()
	if err := reachable(); err != nil {
		return "", k.wrap(err)
	}
	v, err := gokeyring.Get(k.service, name)
	if err != nil {
		return "", k.wrap(err)
	}
	return v, nil
}

// Set keeps the named secret, replacing the one it had.
func (k *Keyring) Set(name, secret string) error {
	if secret == "" {
		return fmt.Errorf("keyring: an empty secret for %q", name)
	}
	if k.mem != nil {
		k.memMu.Lock()
		defer k.memMu.Unlock()
		k.mem[name] = secret
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	if err := reachable(); err != nil {
		return k.wrap(err)
	}
	return k.wrap(gokeyring.Set(k.service, name, secret))
}

// Delete removes the named secret. Removing one that is not there is
// ErrNotFound, so that a caller can say "there was nothing to remove".
func (k *Keyring) Delete(name string) error {
	if k.mem != nil {
		k.memMu.Lock()
		defer k.memMu.Unlock()
		if _, ok := k.mem[name]; !ok {
			return ErrNotFound
		}
		delete(k.mem, name)
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	if err := reachable(); err != nil {
		return k.wrap(err)
	}
	return k.wrap(gokeyring.Delete(k.service, name))
}

// Forget removes every secret the console keeps ('reviewer wipe'); those
// that are not there are no error.
func (k *Keyring) Forget() error {
	for _, n := range names {
		if err := k.Delete(n); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// wrap turns go-keyring's errors into this package's. Its messages never
// carry the secret: go-keyring passes it to the keyring, not to errors.
func (k *Keyring) wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gokeyring.ErrNotFound):
		return ErrNotFound
	case errors.Is(err, gokeyring.ErrSetDataTooBig):
		return fmt.Errorf("the keyring refused the secret: it is too large")
	}
	return &UnavailableError{Err: err}
}

// describe says in words what usually lies behind a keyring's failure.
func describe(err error) string {
	msg := err.Error()
	low := strings.ToLower(msg)
	switch {
	case errors.Is(err, errNoSessionBus):
		return "no desktop session: " + msg
	case strings.Contains(low, "dbus_session_bus_address") || strings.Contains(low, "session bus") ||
		strings.Contains(low, "dbus-launch") || strings.Contains(low, "no such file or directory") && strings.Contains(low, "bus"):
		return "no desktop session bus to ask: " + msg
	case strings.Contains(low, "org.freedesktop.secrets") || strings.Contains(low, "serviceunknown"):
		return "no Secret Service (GNOME Keyring, KWallet) runs in this session: " + msg
	case strings.Contains(low, "prompt") || strings.Contains(low, "dismissed"):
		return "the keyring stayed locked: " + msg
	}
	return msg
}

// MockInit has every Keyring keep its secrets in memory (go-keyring's
// mock provider), for tests: a test must never touch the keyring of the
// person running it. MockInitWithError has every call fail with err, as a
// machine with no keyring does.
func MockInit() {
	mu.Lock()
	defer mu.Unlock()
	mocked = true
	gokeyring.MockInit()
}

// MockInitWithError: see MockInit.
func MockInitWithError(err error) {
	mu.Lock()
	defer mu.Unlock()
	mocked = true
	gokeyring.MockInitWithError(err)
}
