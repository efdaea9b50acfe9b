package keyring_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/keyring"
)

// The app ID the keyring's service name comes from is FyneApp.toml's.
func TestAppIDIsFyneAppID(t *testing.T) {
	f, err := os.Open("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var id string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "ID" {
			id = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	if id == "" || id != keyring.AppID {
		t.Fatalf("FyneApp.toml's ID is %q, keyring.AppID %q: the keyring's service name must be the app ID", id, keyring.AppID)
	}
}

func TestSetGetDeleteThroughMock(t *testing.T) {
	keyring.MockInit()
	k := keyring.New("test.set-get-delete")
	other := keyring.New("test.another-service")
	if _, err := k.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("Get of nothing: %v, want ErrNotFound", err)
	}
	if err := k.Set(keyring.TokenName, "tok-0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	if err := k.Set("documents-key", "a-key-for-kept-documents"); err != nil {
		t.Fatal(err)
	}
	if v, err := k.Get(keyring.TokenName); err != nil || v != "tok-0123456789abcdef" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if _, err := other.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("another service sees the secret: %v", err)
	}
	if err := k.Set(keyring.TokenName, "tok-replaced-0123456789"); err != nil {
		t.Fatal(err)
	}
	if v, _ := k.Get(keyring.TokenName); v != "tok-replaced-0123456789" {
		t.Fatalf("Set did not replace: %q", v)
	}
	if err := k.Delete(keyring.TokenName); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Get(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("after Delete: %v", err)
	}
	if v, err := k.Get("documents-key"); err != nil || v != "a-key-for-kept-documents" {
		t.Fatalf("Delete of one name removed another: %q, %v", v, err)
	}
	if err := k.Delete(keyring.TokenName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("Delete of nothing: %v, want ErrNotFound", err)
	}
	if err := k.Set(keyring.TokenName, ""); err == nil {
		t.Fatal("an empty secret was kept")
	}
}

// Where no keyring answers, every call says so in words, and never as
// "not found" (which would read as "signed out").
func TestNoKeyringSaysSoInWords(t *testing.T) {
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	t.Cleanup(keyring.MockInit)
	k := keyring.New("test.unavailable")
	for name, err := range map[string]error{
		"Set":    k.Set(keyring.TokenName, "tok-0123456789abcdef"),
		"Delete": k.Delete(keyring.TokenName),
		"Get":    func() error { _, err := k.Get(keyring.TokenName); return err }(),
	} {
		if !keyring.IsUnavailable(err) || errors.Is(err, keyring.ErrNotFound) {
			t.Fatalf("%s: %v, want an UnavailableError", name, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "no keyring answers on this computer") || !strings.Contains(msg, "no Secret Service") {
			t.Fatalf("%s says %q", name, msg)
		}
	}
	keyring.MockInitWithError(errors.New("dbus: DBUS_SESSION_BUS_ADDRESS not set"))
	if _, err := k.Get(keyring.TokenName); err == nil || !strings.Contains(err.Error(), "no desktop session bus") {
		t.Fatalf("no session bus: %v", err)
	}
}

// childEnv marks the process that talks to the real Secret Service: the
// mock, once set, cannot be undone in a process (go-keyring keeps its
// provider in a package variable), so that test runs alone in a child.
const childEnv = "REVIEWER_KEYRING_REAL_CHILD"

// TestSecretService stores, reads and removes a secret in the real Secret
// Service of this session, when there is one; otherwise it is skipped and
// says why.
func TestSecretService(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		realSecretService(t)
		return
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Skip("no real keyring to test against: DBUS_SESSION_BUS_ADDRESS is not set (no desktop session bus, so no Secret Service)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecretService$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("against the real Secret Service: %v\n%s", err, out)
	}
	if i := strings.Index(string(out), "SKIP:"); i >= 0 {
		t.Skip(strings.TrimSpace(string(out[i:])))
	}
	t.Logf("%s", out)
}

func realSecretService(t *testing.T) {
	k := keyring.New(fmt.Sprintf("%s.test-%d", keyring.AppID, os.Getpid()))
	if err := k.Set("test-secret", "s3cret-for-the-test-only"); err != nil {
		if keyring.IsUnavailable(err) {
			fmt.Println("SKIP: the session has no Secret Service that answers:", err)
			t.Skip(err)
		}
		t.Fatal(err)
	}
	defer k.Delete("test-secret")
	if v, err := k.Get("test-secret"); err != nil || v != "s3cret-for-the-test-only" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if err := k.Delete("test-secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Get("test-secret"); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("after Delete: %v", err)
	}
}

// With no session bus, the keyring is not asked at all (go-keyring's D-Bus
// library would start a bus daemon to ask it), and the error says why.
func TestNoSessionBusIsNotStarted(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		k := keyring.New(keyring.AppID + ".test-no-bus")
		_, err := k.Get(keyring.TokenName)
		if !keyring.IsUnavailable(err) || !strings.Contains(err.Error(), "no desktop session") {
			t.Fatalf("Get with no session bus: %v", err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoSessionBusIsNotStarted$", "-test.count=1")
	env := []string{childEnv + "=1", "XDG_RUNTIME_DIR=" + t.TempDir()}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") && !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
