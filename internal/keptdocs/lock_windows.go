package keptdocs

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lockFolder holds an exclusive lock against every other process (and
// every other Store) until unlock, as lock_unix.go does with flock on the
// folder. Windows cannot lock a folder's handle, so the lock is
// LockFileEx, waiting, on the first byte of a file ".lock" in it, which
// holds nothing and is never read.
func lockFolder(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &windows.Overlapped{}); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, &windows.Overlapped{})
		f.Close()
	}, nil
}
