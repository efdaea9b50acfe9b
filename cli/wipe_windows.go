package cli

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"

	"github.com/trustscreen/reviewer/policy"
)

// inUse says whether another process has the cache open, as wipe_unix.go
// does, with Windows' byte-range locks: SQLite's Windows build holds a
// shared LockFileEx lock on the same "DMS" byte (offset 128) of the -shm
// file for as long as a connection is open (winLockSharedMemory), so an
// exclusive lock on it, asked not to wait, is refused while one is.
func inUse(cache string) error {
	f, err := os.OpenFile(cache+"-shm", os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	h := windows.Handle(f.Fd())
	ol := &windows.Overlapped{Offset: 128}
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol); err != nil {
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
			return policy.Errorf(policy.CodeCacheBusy, "another console (the window, or a reviewer command) has the cache %s open: "+
				"close it and run 'reviewer wipe' again; nothing was removed", cache)
		}
		return err
	}
	windows.UnlockFileEx(h, 0, 1, 0, &windows.Overlapped{Offset: 128})
	return nil
}
