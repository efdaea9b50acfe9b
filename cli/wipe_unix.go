//go:build unix

package cli

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/trustscreen/reviewer/policy"
)

// inUse says whether another process has the cache open. Every SQLite
// connection to a cache in WAL mode holds a shared lock on one byte of its
// -shm file (the "DMS" byte, offset 128) for as long as it is open; a
// write lock on it is granted only when no other process holds one.
// Removing a cache under an open console would lose what it writes next.
func inUse(cache string) error {
	f, err := os.OpenFile(cache+"-shm", os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 128, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk); err != nil {
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			return policy.Errorf(policy.CodeCacheBusy, "another console (the window, or a reviewer command) has the cache %s open: "+
				"close it and run 'reviewer wipe' again; nothing was removed", cache)
		}
		return err
	}
	lk.Type = unix.F_UNLCK
	unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk)
	return nil
}
