//go:build linux && cgo && !android

package main

// #include <malloc.h>
import "C"

// trimCHeap hands the C heap's free pages back to the system. glibc's
// malloc keeps what start-up's C code freed (Mesa's first frames, the
// GLFW window's set-up, SQLite's first reads) mapped until a free at the
// top of an arena crosses its trim threshold, which an idle window never
// makes: 3 to 5 MB of the idle window's resident memory
// (docs/performance.md).
func trimCHeap() { C.malloc_trim(0) }
