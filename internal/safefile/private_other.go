//go:build !windows

package safefile

import "os"

// Private makes f a file only its owner can read and write: mode 0600.
func Private(f *os.File) error { return f.Chmod(0o600) }
