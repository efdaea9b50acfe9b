package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mattn/go-sqlite3"

	"github.com/trustscreen/reviewer/policy"
)

// Problem is why a cache cannot be used as it is.
type Problem int

const (
	// ProblemReadOnly: the cache file, its folder or its file system cannot be
	// written. Reads still work (ReadOnly option); writes cannot.
	ProblemReadOnly Problem = iota + 1
	// ProblemNewer: a newer console made (or last opened) the cache.
	ProblemNewer
	// ProblemUnordered: the cache lacks a migration older than its newest one;
	// migrations are applied only in order.
	ProblemUnordered
	// ProblemOutdated: a read-only cache older than this console: it cannot be
	// brought up to date without writing.
	ProblemOutdated
	// ProblemDamaged: SQLite found the file malformed (or not a database at all).
	ProblemDamaged
	// ProblemDiskFull: the disk that holds the cache is full.
	ProblemDiskFull
)

// CacheError says, in words, why the cache cannot be used as it is and
// what to do next. Err is what the system or SQLite said.
type CacheError struct {
	Problem Problem
	Path    string
	// What is what happened, in words; Next the next step.
	What, Next string
	// Why is, for ProblemReadOnly, what cannot be written and what the
	// system said ("its folder … cannot be written (permission denied)…"),
	// when a try found it.
	Why string
	Err error
}

func (e *CacheError) Error() string {
	s := e.What
	if e.Next != "" {
		s += "; " + e.Next
	}
	if e.Err != nil {
		s += " (details: " + e.Err.Error() + ")"
	}
	return s
}

func (e *CacheError) Unwrap() error { return e.Err }

// ConsoleCode is the code policy.ErrorCode gives a CacheError.
func (e *CacheError) ConsoleCode() policy.Code {
	switch e.Problem {
	case ProblemReadOnly:
		return policy.CodeCacheReadOnly
	case ProblemNewer:
		return policy.CodeCacheNewer
	case ProblemUnordered, ProblemOutdated:
		return policy.CodeCacheSchema
	case ProblemDamaged:
		return policy.CodeCacheDamaged
	case ProblemDiskFull:
		return policy.CodeDiskFull
	}
	return policy.CodeInternal
}

// AsCacheError returns the CacheError in err's chain, or nil.
func AsCacheError(err error) *CacheError {
	var ce *CacheError
	if errors.As(err, &ce) {
		return ce
	}
	return nil
}

// Explain returns err as a CacheError when SQLite's answer says the cache at
// path cannot be used as it is (read-only, damaged, a full disk), or nil.
// A CacheError already in the chain is returned as it is.
func Explain(path string, err error) *CacheError {
	if err == nil {
		return nil
	}
	if ce := AsCacheError(err); ce != nil {
		return ce
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return nil
	}
	switch se.Code {
	case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
		return damaged(path, err)
	case sqlite3.ErrFull:
		return diskFull(path, err)
	case sqlite3.ErrReadonly:
		return readOnly(path, "", err)
	case sqlite3.ErrCantOpen, sqlite3.ErrIoErr, sqlite3.ErrPerm:
		switch se.SystemErrno {
		case syscall.ENOSPC:
			return diskFull(path, err)
		case syscall.EROFS, syscall.EACCES, syscall.EPERM:
			return readOnly(path, "", err)
		}
		if se.Code == sqlite3.ErrCantOpen {
			if why := unwritable(path); why != "" {
				return readOnly(path, why, err)
			}
		}
	}
	return nil
}

// explainOpen is Explain for what Open meets on the way to SQLite: the
// cache's folder and file, which the system refuses with an errno.
func explainOpen(path string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.EROFS, syscall.EACCES, syscall.EPERM:
			return readOnly(path, unwritable(path), err)
		case syscall.ENOSPC:
			return diskFull(path, err)
		}
	}
	if ce := Explain(path, err); ce != nil {
		return ce
	}
	return err
}

// unwritable says why the cache at path cannot be written ("" when it
// can, as far as a try shows). It tries, rather than reading modes: root
// ignores modes, and neither a read-only mount nor an immutable file shows
// in them.
func unwritable(path string) string {
	dir := filepath.Dir(path)
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrNotExist) {
		return "the file " + path + " cannot be written (" + errText(err) + ")"
	}
	probe, err := os.CreateTemp(dir, ".reviewer-probe-*")
	if err != nil {
		return "its folder " + dir + " cannot be written (" + errText(err) + "), and SQLite keeps its write-ahead log there"
	}
	probe.Close()
	os.Remove(probe.Name())
	return ""
}

func errText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

func readOnly(path, why string, err error) *CacheError {
	if why == "" {
		why = unwritable(path)
	}
	what := "the cache " + path + " cannot be written"
	if why != "" {
		what += ": " + why
	}
	return &CacheError{Problem: ProblemReadOnly, Path: path, What: what, Why: why, Err: err,
		Next: "reading commands (items, item, outbox, export) still show what it holds; to sync, act or flush, " +
			"make it writable for this user, or copy it (with any " + filepath.Base(path) + "-wal beside it) " +
			"to a writable folder and point REVIEWER_DB at the copy"}
}

func damaged(path string, err error) *CacheError {
	return &CacheError{Problem: ProblemDamaged, Path: path, Err: err,
		What: "the cache " + path + " is damaged; the console never repairs, replaces or deletes it",
		Next: "save its unsent actions and their keys with 'reviewer outbox --json > outbox-saved.json' " +
			"(it reads what it can), then move the cache away (with any -wal and -shm beside it: " +
			"mv " + path + " " + path + ".damaged) and run 'reviewer sync' to start a new one; " +
			"an action saved as sending or unknown may have reached the service: check its item after the sync before acting on it again"}
}

func diskFull(path string, err error) *CacheError {
	return &CacheError{Problem: ProblemDiskFull, Path: path, Err: err,
		What: "the disk that holds the cache " + path + " is full; what was being written was not kept",
		Next: "free space on it (" + filepath.Dir(path) + "), then run the command again"}
}

// newer is the refusal of a cache a newer console made.
func newer(path string, cacheVersion, known int64) *CacheError {
	return &CacheError{Problem: ProblemNewer, Path: path,
		What: fmt.Sprintf("this cache was made by a newer console (%s is at schema %d; this console knows up to %d); nothing in it was changed",
			path, cacheVersion, known),
		Next: "use the newer console, or point REVIEWER_DB (or --db) at another cache"}
}

// unordered is the refusal of a cache that lacks an older migration.
func unordered(path string, newest int64, missing []int64) *CacheError {
	names := make([]string, len(missing))
	for i, v := range missing {
		names[i] = fmt.Sprintf("%05d", v)
	}
	return &CacheError{Problem: ProblemUnordered, Path: path,
		What: fmt.Sprintf("the cache %s is at schema %05d but lacks the older migration %s, and migrations are applied only in order; nothing in it was changed",
			path, newest, strings.Join(names, ", ")),
		Next: "use the console that made it, or save its unsent actions with 'reviewer outbox --json > outbox-saved.json', " +
			"move it away and run 'reviewer sync' to start a new one"}
}

// outdated is the refusal of a read-only cache older than this console.
func outdated(path string, cacheVersion, known int64) *CacheError {
	return &CacheError{Problem: ProblemOutdated, Path: path,
		What: fmt.Sprintf("the cache %s is read-only and at schema %d, older than this console's %d: it cannot be brought up to date without writing",
			path, cacheVersion, known),
		Next: "make it writable once (any command then updates it), or save its unsent actions with 'reviewer outbox --json > outbox-saved.json'"}
}
