// Package safefile reads and writes the files a person names on the command
// line (a replacement to upload, a token file, a CSV export) without the
// traps of a plain os.ReadFile or os.Create:
//
//   - a named pipe, a device, a socket or a directory is refused before it is
//     opened (opening a FIFO blocks in openat, where no signal can end it; a
//     device such as /dev/zero reports size 0 and never ends);
//   - a file is opened non-blocking and checked again with fstat, so a file
//     swapped for a FIFO between the two checks is refused too;
//   - a read goes through a limit, never trusting the reported size;
//   - a write goes to a new temporary file (mode 0600) in the target's
//     folder and is renamed (or hard-linked, when the target must not exist)
//     into place: an existing target is kept unless the caller forces it, and
//     a symbolic link at the target is never followed.
//
// It is its own package because both the client (the token file) and the
// command line and the export path use it, and it knows nothing of either.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// NotRegularError is a path that is not a regular file.
type NotRegularError struct {
	Path string
	Kind string // "a named pipe (FIFO)", "a directory", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.Kind)
}

// TooLargeError is a file longer than the limit of a read.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s", e.Path, Size(e.Limit))
}

// ExistsError is a write target that exists while the caller did not force.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string { return fmt.Sprintf("%s already exists", e.Path) }

// SymlinkError is a write target that is a symbolic link.
type SymlinkError struct{ Path string }

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link; name the file itself (a link is never followed for writing)", e.Path)
}

// FolderError is a write target whose folder does not exist, or is not a
// folder. It names the folder, never the temporary file a write would have
// gone through.
type FolderError struct {
	Dir     string
	Missing bool // the folder does not exist (else it is not a folder)
}

func (e *FolderError) Error() string {
	if e.Missing {
		return fmt.Sprintf("the folder %s does not exist; create it first, or name a file in a folder that exists", e.Dir)
	}
	return fmt.Sprintf("%s is not a folder", e.Dir)
}

// checkFolder says what is wrong with the folder of a target that could not
// be looked at or created: nil when the folder is a folder.
func checkFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &FolderError{Dir: dir, Missing: true}
	case errors.Is(err, syscall.ENOTDIR), err == nil && !fi.IsDir():
		return &FolderError{Dir: dir}
	}
	return nil
}

// folderOf is the folder a target is written in.
func folderOf(target string) string {
	dir := filepath.Dir(target)
	if dir == "" {
		return "."
	}
	return dir
}

// Size says a byte count in words: "10 MiB", "64 KiB", "12 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Kind names the type of a file mode in words.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// Open opens a regular file for reading: it is refused, unopened, when it
// is anything else (a symbolic link is followed: the file it names is
// checked). It is opened non-blocking and checked again on the open
// descriptor.
func Open(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	// O_NONBLOCK: if the path was swapped for a FIFO since the Stat, the
	// open returns at once instead of waiting for a writer. It changes
	// nothing for a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	return f, fi, nil
}

// ReadFile reads a regular file of at most limit bytes. It reads through a
// limit of limit+1 bytes whatever size the file reports, and refuses the
// file with a *TooLargeError at the limit.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, _, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

func readLimited(r io.Reader, path string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}

// CheckTarget checks a path that WriteNew is about to write, before any
// work: an error when its folder is missing (*FolderError), when it is a
// symbolic link, not a regular file, or (without force) exists.
func CheckTarget(target string, force bool) error {
	fi, err := os.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return checkFolder(folderOf(target))
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return &SymlinkError{Path: target}
	case !fi.Mode().IsRegular():
		return &NotRegularError{Path: target, Kind: Kind(fi.Mode())}
	case !force:
		return &ExistsError{Path: target}
	}
	return nil
}

// WriteNew writes a file through write: into a new temporary file (mode
// 0600, created exclusively) in the target's folder, synced, then moved to
// target. Without force an existing target is an *ExistsError, checked
// atomically by a hard link; with force a regular file at target is
// replaced (a new file: its old mode is not kept). A symbolic link or
// anything but a regular file at target is refused, force or not. On any
// error the temporary file is removed and target is untouched.
func WriteNew(target string, force bool, write func(io.Writer) error) (err error) {
	if err := CheckTarget(target, force); err != nil {
		return err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		// The temporary file's name means nothing to whoever named the
		// target: say what is wrong with the folder.
		if ferr := checkFolder(folderOf(target)); ferr != nil {
			return ferr
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot create a file in the folder %s: %w", folderOf(target), err)
	}
	tmpName := tmp.Name()
	defer func() {
		if tmp != nil {
			tmp.Close()
		}
		if err != nil {
			os.Remove(tmpName)
		}
	}()
	if err := Private(tmp); err != nil { // CreateTemp's mode, made sure of (an ACL on Windows)
		return err
	}
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	err = tmp.Close()
	tmp = nil
	if err != nil {
		return err
	}
	if force {
		// Between CheckTarget and here the target may have become a link
		// or a FIFO; rename replaces the entry itself, never what it
		// points to, so nothing outside the folder is written.
		if err := CheckTarget(target, true); err != nil {
			return err
		}
		if err := os.Rename(tmpName, target); err != nil {
			return err
		}
	} else {
		// link(2) fails if the target exists, whatever it is: no race
		// between the check and the write.
		if err := os.Link(tmpName, target); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return &ExistsError{Path: target}
			}
			// A file system without hard links: check again and rename.
			if err := CheckTarget(target, false); err != nil {
				return err
			}
			if err := os.Rename(tmpName, target); err != nil {
				return err
			}
		} else {
			os.Remove(tmpName)
		}
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable; a folder that cannot be synced (some
// file systems) changes nothing about the write.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
