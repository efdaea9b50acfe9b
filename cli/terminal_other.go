//go:build !linux

package cli

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal, as the system says it:
// golang.org/x/term asks Windows whether f is a console (GetConsoleMode)
// and macOS for the terminal's settings (TIOCGETA), the same question as
// terminal_linux.go's TCGETS. A character device is not enough: NUL and
// /dev/null are ones.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
