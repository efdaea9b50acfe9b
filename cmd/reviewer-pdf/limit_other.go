//go:build !linux

package main

// limitAddressSpace does nothing off Linux: the renderer's memory is bound
// by wazero's own limit on the WebAssembly memory (-memory-mib), which is
// where PDFium allocates everything it reads from a PDF; the Go runtime and
// the compiled module beside it are of a fixed size. Chosen over a Windows
// Job Object (JOB_OBJECT_LIMIT_PROCESS_MEMORY) because it is the same
// bound on every system and needs no call that Wine, where the Windows
// build is tested, may only pretend to make. macOS has no working
// RLIMIT_AS either.
func limitAddressSpace(uint64) error { return nil }

// lowerPriority does nothing off Linux (the console starts the compile
// only well after its window's start, which is the bound that matters).
func lowerPriority() {}
