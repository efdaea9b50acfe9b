package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// What the system and SQLite say of a cache becomes a problem in words:
// the errno paths that a test cannot make as root on every machine (a
// read-only file system, a denied file) are given here as the system
// gives them.
func TestExplainNamesTheProblem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	for _, c := range []struct {
		name string
		err  error
		want Problem
	}{
		{"EROFS on the file", &fs.PathError{Op: "open", Path: path, Err: syscall.EROFS}, ProblemReadOnly},
		{"EACCES on the file", &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}, ProblemReadOnly},
		{"EPERM (immutable)", &fs.PathError{Op: "open", Path: path, Err: syscall.EPERM}, ProblemReadOnly},
		{"ENOSPC", &fs.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}, ProblemDiskFull},
		{"SQLITE_READONLY", fmt.Errorf("sync: %w", sqlite3.Error{Code: sqlite3.ErrReadonly}), ProblemReadOnly},
		{"SQLITE_IOERR with EROFS", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.EROFS}, ProblemReadOnly},
		{"SQLITE_FULL", sqlite3.Error{Code: sqlite3.ErrFull}, ProblemDiskFull},
		{"SQLITE_IOERR with ENOSPC", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.ENOSPC}, ProblemDiskFull},
		{"SQLITE_CORRUPT", sqlite3.Error{Code: sqlite3.ErrCorrupt}, ProblemDamaged},
		{"SQLITE_NOTADB", sqlite3.Error{Code: sqlite3.ErrNotADB}, ProblemDamaged},
	} {
		var ce *CacheError
		if !errors.As(explainOpen(path, c.err), &ce) || ce.Problem != c.want {
			t.Errorf("%s: %v, want problem %d", c.name, explainOpen(path, c.err), c.want)
		}
	}
	// A plain failure of the store is left alone: not every error is the cache's.
	if ce := Explain(path, errors.New("no such item")); ce != nil {
		t.Errorf("a plain error explained as %v", ce)
	}
	if ce := Explain(path, sqlite3.Error{Code: sqlite3.ErrConstraint}); ce != nil {
		t.Errorf("a constraint explained as %v", ce)
	}
}
