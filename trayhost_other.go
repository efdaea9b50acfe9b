//go:build !linux

package main

// trayHost: Windows and macOS always show tray (menu bar) icons.
func trayHost() bool { return true }
