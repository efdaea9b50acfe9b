//go:build !unix && !windows

package keptdocs

// lockFolder has no lock between processes here: two consoles making the
// first key at once may each keep their own (lock_unix.go).
func lockFolder(string) (func(), error) { return func() {}, nil }
