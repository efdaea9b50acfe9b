//go:build !linux

package cli

import "os"

// isTerminal reports whether f is a character device: the best guess where
// the terminal's ioctl is not asked (the console is built for Linux).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
