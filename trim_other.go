//go:build !linux || !cgo || android

package main

// trimCHeap does nothing where the C library is not glibc (trim_glibc.go).
func trimCHeap() {}
