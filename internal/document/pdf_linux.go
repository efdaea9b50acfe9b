package document

import "syscall"

// endsWithConsole: on Linux the kernel kills the renderer the moment the
// console's thread that started it ends (PR_SET_PDEATHSIG), even in the
// middle of a page. The renderer also ends by itself when its stdin ends
// (cmd/reviewer-pdf), the portable way that also holds elsewhere; this is
// the faster of the two where it exists.
func endsWithConsole() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
