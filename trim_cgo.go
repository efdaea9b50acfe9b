//go:build linux && cgo && !android

package main

// #include <stdlib.h>
// #if defined(__GLIBC__)
// #include <malloc.h>
// static void trim_c_heap(void) { malloc_trim(0); }
// #else
// static void trim_c_heap(void) {}
// #endif
import "C"

// trimCHeap hands the C heap's free pages back to the system. glibc's
// malloc keeps what start-up's C code freed (Mesa's first frames, the
// GLFW window's set-up, SQLite's first reads) mapped until a free at the
// top of an arena crosses its trim threshold, which an idle window never
// makes: 2 to 3 MB of the idle window's resident memory
// (docs/performance.md). Another C library (musl) has no malloc_trim:
// nothing is done there.
func trimCHeap() { C.trim_c_heap() }
