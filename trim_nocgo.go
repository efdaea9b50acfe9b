//go:build !linux || !cgo || android

package main

// trimCHeap does nothing without cgo, or off Linux (trim_cgo.go).
func trimCHeap() {}
