// Package ownerfile creates the files informtop writes (recordings, the
// client log), which hold the cluster's objects: readable by their owner
// only, never through a symbolic link, never blocking on a FIFO, and never
// anything but a regular file. It is the writing side of
// internal/smallfile.
package ownerfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/informtop/informtop/agent/shared/smallfile"
)

// ExistsError is a path that names something already, which Create was
// not asked to replace: a regular file or a symbolic link, as What says.
// It is fs.ErrExist.
type ExistsError struct{ What string }

func (e *ExistsError) Error() string      { return "it exists already (" + e.What + ")" }
func (*ExistsError) Is(target error) bool { return target == fs.ErrExist }

// UnsafeError is an existing file that others could read or that
// belongs to another user: appending to it would show them what is
// written.
type UnsafeError struct{ Why string }

func (e *UnsafeError) Error() string { return e.Why }

// NotRegularError is smallfile's: the path names a FIFO, a device, a
// directory, a symbolic link.
type NotRegularError = smallfile.NotRegularError

// exclusive opens a new file: never an existing one, nor through a
// symbolic link, and without waiting.
const exclusive = os.O_WRONLY | os.O_CREATE | os.O_EXCL | openNoFollow | openNonblock

// Create makes path a new regular file, mode 0600. When something exists
// at path it returns an *ExistsError, unless replace is set: then an
// existing regular file or symbolic link is replaced, not written
// through (the new file is made beside it and renamed over it). Anything
// else at path (a FIFO, a device, a directory, a link to one of those)
// is a *NotRegularError.
func Create(path string, replace bool) (*os.File, error) {
	f, err := os.OpenFile(path, exclusive, 0o600)
	if err == nil {
		return regular(f)
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	fi, lerr := os.Lstat(path)
	if lerr != nil {
		return nil, err
	}
	if err := replaceable(path, fi, replace); err != nil {
		return nil, err
	}
	// CreateTemp opens with O_EXCL and 0600: a name nobody else holds.
	// The rename replaces the directory entry, so a link's target is
	// never touched, and readers of the old file keep it whole.
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err = os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	return regular(f)
}

// Check returns the error Create(path, replace) would return for what
// is at path now, without creating anything (nil for nothing there): a
// command asks before it starts the work whose output path refuses.
func Check(path string, replace bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil // nothing there, or Create will say what is wrong
	}
	return replaceable(path, fi, replace)
}

// replaceable says whether Create may replace fi, which is at path.
func replaceable(path string, fi fs.FileInfo, replace bool) error {
	if t := fi.Mode().Type(); t != 0 && t != fs.ModeSymlink {
		return &NotRegularError{What: smallfile.What(fi.Mode())}
	}
	if !replace {
		return &ExistsError{What: smallfile.What(fi.Mode())}
	}
	// A link to a device or a FIFO (/dev/stdout is one) names something
	// that is not the user's file to replace.
	if ti, err := os.Stat(path); err == nil && fi.Mode().Type() == fs.ModeSymlink && !ti.Mode().IsRegular() {
		return &NotRegularError{What: "a symbolic link to " + smallfile.What(ti.Mode())}
	}
	return nil
}

// Append opens path to append to it, creating it (0600) when missing. An
// existing path must be a regular file of the user's, readable and
// writable by its owner only; anything else is a *NotRegularError or an
// *UnsafeError.
func Append(path string) (*os.File, error) {
	f, err := os.OpenFile(path, exclusive|os.O_APPEND, 0o600)
	if err == nil {
		return regular(f)
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	// Look before opening, so that a FIFO or a device is never opened
	// at all; then check what was opened, in case the path changed.
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := appendable(fi); err != nil {
		return nil, err
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|openNoFollow|openNonblock, 0)
	if err != nil {
		return nil, swapped(err)
	}
	if fi, err = f.Stat(); err == nil {
		err = appendable(fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func appendable(fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &NotRegularError{What: smallfile.What(fi.Mode())}
	}
	if p := fi.Mode().Perm(); p&0o077 != 0 {
		return &UnsafeError{Why: fmt.Sprintf("others may read or write it (%v, where only its owner should: -rw-------)", p)}
	}
	if !ownedByMe(fi) {
		return &UnsafeError{Why: "it belongs to another user"}
	}
	return nil
}

// regular returns f if it is a regular file, else closes it: what was
// opened is checked, not what the path named a moment before.
func regular(f *os.File) (*os.File, error) {
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &NotRegularError{What: smallfile.What(fi.Mode())}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// swapped names what an open refused when the path was swapped after it
// was looked at: a symbolic link (ELOOP under O_NOFOLLOW), a FIFO nobody
// reads (ENXIO under O_NONBLOCK).
func swapped(err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return &NotRegularError{What: "a symbolic link"}
	case errors.Is(err, syscall.ENXIO):
		return &NotRegularError{What: "a named pipe (FIFO)"}
	}
	return err
}
