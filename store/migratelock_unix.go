//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// migrationWait is how long Open waits for another process to finish
// migrating the same cache.
const migrationWait = 2 * time.Minute

// lockMigrations takes an exclusive flock(2) on the cache file, so that two
// processes opening a new cache at once do not both run its migrations (the
// second would fail on a table the first just made). flock is apart from
// the fcntl locks SQLite takes on the same file. f must stay open as long
// as the cache is: closing any descriptor of the file would drop SQLite's
// fcntl locks of this process.
func lockMigrations(f *os.File) (unlock func(), err error) {
	fd := int(f.Fd())
	deadline := time.Now().Add(migrationWait)
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(fd, syscall.LOCK_UN) }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return nil, fmt.Errorf("cache file: locking it to migrate: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("cache file: another process has been preparing %s for %s; try again", f.Name(), migrationWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
