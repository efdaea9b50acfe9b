package cli

import (
	"os"
	"testing"
)

// TestIsTerminal: a pseudo-terminal is one, /dev/null (a character device)
// and a regular file are not.
func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Fatal("/dev/null is taken for a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "plain")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatal("a regular file is taken for a terminal")
	}
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to check the positive case: %v", err)
	}
	defer pty.Close()
	if !isTerminal(pty) {
		t.Fatal("a pseudo-terminal is not taken for a terminal")
	}
}
