package cli

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal, as x/term tells (the
// terminal's own ioctl): /dev/null is a character device, and not one.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
