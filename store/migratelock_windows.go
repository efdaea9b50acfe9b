package store

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// migrationWait is how long Open waits for another process to finish
// migrating the same cache.
const migrationWait = 2 * time.Minute

// migrationLockOffset is the byte of the cache file the migration lock
// holds: Windows' byte-range locks are mandatory (a locked byte cannot be
// read through another handle), so it is far beyond any byte SQLite reads,
// writes or locks (its own locks are at 1 GiB); a lock may lie beyond the
// end of a file.
const migrationLockOffset = 1 << 62

// lockMigrations takes an exclusive LockFileEx lock on one byte of the
// cache file, the Windows equivalent of migratelock_unix.go's flock, so
// that two processes opening a new cache at once do not both run its
// migrations.
func lockMigrations(f *os.File) (unlock func(), err error) {
	h := windows.Handle(f.Fd())
	at := func() *windows.Overlapped {
		return &windows.Overlapped{Offset: uint32(migrationLockOffset & 0xffffffff), OffsetHigh: uint32(migrationLockOffset >> 32)}
	}
	deadline := time.Now().Add(migrationWait)
	for {
		err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, at())
		if err == nil {
			return func() { _ = windows.UnlockFileEx(h, 0, 1, 0, at()) }, nil
		}
		if !errors.Is(err, windows.ERROR_LOCK_VIOLATION) && !errors.Is(err, windows.ERROR_IO_PENDING) {
			return nil, fmt.Errorf("cache file: locking it to migrate: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("cache file: another process has been preparing %s for %s; try again", f.Name(), migrationWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
