package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal: whether it answers the
// terminal's own ioctl (TCGETS). A character device is not enough:
// /dev/null is one, and nobody answers a question there.
func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var ioErr error
	if err := rc.Control(func(fd uintptr) { _, ioErr = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); err != nil {
		return false
	}
	return ioErr == nil
}
