package main

import "syscall"

// limitAddressSpace sets RLIMIT_AS: the whole process, Go runtime and
// compiled code included, cannot map more than lim bytes, whatever PDFium
// does inside or outside its WebAssembly memory.
func limitAddressSpace(lim uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}

// lowerPriority makes the process the last to get a processor (nice 19):
// compiling ahead of need must never slow what she is doing.
func lowerPriority() { _ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 19) }
