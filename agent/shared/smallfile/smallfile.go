// Package smallfile reads a small file a user points informtop at (a key
// map, a token) without letting what the path names take the machine: a
// FIFO would block the open forever, /dev/zero would fill memory.
package smallfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is returned for a path that names something other than
// a regular file; What says what it is, e.g. "a named pipe (FIFO)".
type NotRegularError struct{ What string }

func (e *NotRegularError) Error() string { return "it is " + e.What + ", not a regular file" }

// ErrTooLarge is returned for a file holding more than the caller's limit.
var ErrTooLarge = errors.New("the file is larger than allowed")

// Read returns the content of path: a regular file (symbolic links
// followed) of at most limit bytes. It checks the path before opening it,
// opens it non-blocking, and checks what it opened again, in case the path
// changed in between; the limit holds whatever the file grows to while it
// is read. A file system error is returned as is (fs.ErrNotExist for a
// missing file); anything else is a *NotRegularError or ErrTooLarge.
func Read(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(fi, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(fi, limit); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, ErrTooLarge
	}
	return raw, nil
}

func check(fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &NotRegularError{What: What(fi.Mode())}
	}
	if fi.Size() > limit {
		return ErrTooLarge
	}
	return nil
}

// What names the kind of file mode describes, for a sentence: "a named
// pipe (FIFO)", "a symbolic link", "a regular file".
func What(mode fs.FileMode) string {
	switch t := mode.Type(); {
	case t == 0:
		return "a regular file"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeDevice != 0:
		return "a device"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSocket != 0:
		return "a socket"
	}
	return "an irregular file"
}
