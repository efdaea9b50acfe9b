//go:build !linux

package document

import "syscall"

// endsWithConsole: Windows and macOS have no parent-death signal. The
// renderer ends by itself when its stdin ends: the console holds the only
// write end of that pipe, and the system closes it when the console exits
// or is killed. The renderer then finishes at most the page it is drawing,
// within its time limit (cmd/reviewer-pdf, -time-limit), and exits. A Job
// Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE would end it at once on
// Windows; the pipe was chosen because it is one mechanism everywhere and
// is tested on Linux as on Windows.
func endsWithConsole() *syscall.SysProcAttr { return nil }
