//go:build !linux || !cgo || android

package main

// trimCHeap does nothing where the C library is not glibc (trim_cgo.go).
func trimCHeap() {}
