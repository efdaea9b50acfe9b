//go:build !windows

package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckPermissions looks at the cache at path and its folder before the
// console opens it, and says in words what it found wider than it should
// be, and what it did about it. The cache, its -wal, -shm and -journal
// hold the reviewers' names, the customers' references and the outbox:
// each is made private (0600; 0400 when its owner may not write it) when
// others may read it. The console's own folder
// (the default one, which it made 0700) is made 0700 again; a folder the
// reviewer chose is only warned about when others may write to it (they
// could put a file of theirs in the cache's place), unless it is sticky as
// /tmp is. A file that cannot be made private is an error. Nothing that is
// not there is created.
func CheckPermissions(path string) (warnings []string, err error) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		perm := fi.Mode().Perm()
		own := false
		if def, derr := DefaultPath(); derr == nil && filepath.Clean(filepath.Dir(def)) == filepath.Clean(dir) {
			own = true
		}
		switch {
		case own && perm&0o077 != 0:
			if err := os.Chmod(dir, 0o700); err != nil {
				warnings = append(warnings, fmt.Sprintf("the cache's folder %s is mode %04o (others can look into it) and cannot be made 0700: %v", dir, perm, err))
			} else {
				warnings = append(warnings, fmt.Sprintf("the cache's folder %s was mode %04o (others could look into it): made 0700", dir, perm))
			}
		case perm&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0:
			warnings = append(warnings, fmt.Sprintf("the cache's folder %s is mode %04o: others can put files in it, in the cache's place; run: chmod 700 %s, or keep the cache in a folder of your own",
				dir, perm, dir))
		}
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return warnings, fmt.Errorf("cache file: %w", err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
			continue // Open refuses what is not a regular file
		}
		// Only what others may do is taken away: a copy its owner keeps
		// read-only (0444) stays so (0400), and is read as one.
		private := fi.Mode().Perm() &^ 0o077
		if err := os.Chmod(p, private); err != nil {
			return warnings, fmt.Errorf("cache file: %s is mode %04o (others can read it) and cannot be made %04o: %w", p, fi.Mode().Perm(), private, err)
		}
		warnings = append(warnings, fmt.Sprintf("the cache file %s was mode %04o (others could read it): made %04o", p, fi.Mode().Perm(), private))
	}
	return warnings, nil
}
