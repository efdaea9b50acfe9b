package cli

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/screenapi"
)

// On a terminal, login reads the token without echo: typed on a real
// pseudo-terminal, it never comes back on the terminal's output.
func TestLoginDoesNotEchoTheToken(t *testing.T) {
	const tok = "pty-login-token-0000001"
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("cannot unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("no pseudo-terminal number: %v", err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal: %v", err)
	}
	defer slave.Close()

	keyring.MockInit()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Reviewers: []screenapi.Reviewer{{Name: "ana", DisplayName: "Ana Lima", Token: tok}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ring := keyring.New("test.pty-login")
	env := map[string]string{"REVIEWER_API_URL": srv.URL(), "REVIEWER_DB": filepath.Join(t.TempDir(), "cache.db")}
	var out, errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- Run([]string{"login"}, Env{Stdout: &out, Stderr: &errb, Stdin: slave, Keyring: ring,
			Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	// Type the token once login has turned the echo off.
	deadline := time.Now().Add(60 * time.Second)
	for {
		tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("login never turned the echo off")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := master.WriteString(tok + "\n"); err != nil {
		t.Fatal(err)
	}
	var got int
	select {
	case got = <-code:
	case <-time.After(60 * time.Second):
		t.Fatal("login did not end")
	}
	if got != ExitOK || !strings.Contains(out.String(), "as Ana Lima (ana)") {
		t.Fatalf("login: exit %d\n%s\n%s", got, out.String(), errb.String())
	}
	if v, err := ring.Get(keyring.TokenName); err != nil || v != tok {
		t.Fatalf("keyring: %v", err)
	}
	// What the terminal showed: a marker written after login ends closes
	// it, so the read stops there.
	if _, err := slave.WriteString("END-OF-TERMINAL\n"); err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder
	r := bufio.NewReader(master)
	for !strings.Contains(shown.String(), "END-OF-TERMINAL") {
		line, err := r.ReadString('\n')
		shown.WriteString(line)
		if err != nil {
			t.Fatalf("reading the terminal: %v (%q)", err, shown.String())
		}
	}
	if strings.Contains(shown.String(), tok) || strings.Contains(out.String()+errb.String(), tok) {
		t.Fatalf("the token was echoed: %q", shown.String())
	}
	if !strings.Contains(errb.String(), "not shown as you type") {
		t.Fatalf("no prompt: %q", errb.String())
	}
}
