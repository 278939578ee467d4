//go:build unix

package ownerfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// What informtop creates is 0600 whatever the umask lets through, an
// existing path is never opened for writing, and Append adds to a
// private file of the user's.
func TestCreateAndAppend(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0))
	dir := t.TempDir()
	rec := filepath.Join(dir, "a.rec.zst")
	log := filepath.Join(dir, "a.log")
	for _, open := range []func() (*os.File, error){
		func() (*os.File, error) { return Create(rec, false) },
		func() (*os.File, error) { return Append(log) },
	} {
		f, err := open()
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.WriteString("one\n")
		f.Close()
	}
	for _, p := range []string{rec, log} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want -rw-------", filepath.Base(p), fi, err)
		}
	}
	if _, err := Create(rec, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing file: %v; want fs.ErrExist", err)
	}
	f, err := Append(log)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("two\n")
	f.Close()
	if b, _ := os.ReadFile(log); string(b) != "one\ntwo\n" {
		t.Errorf("the log holds %q, want both lines", b)
	}
	var notRegular *NotRegularError
	if _, err := Append(dir); !errors.As(err, &notRegular) || notRegular.What != "a directory" {
		t.Errorf("Append to a directory: %v", err)
	}
	if _, err := Create(dir, true); !errors.As(err, &notRegular) {
		t.Errorf("Create replacing a directory: %v", err)
	}
	// -o /dev/stdout --force must not replace the system's link.
	stdout := filepath.Join(dir, "stdout")
	if err := os.Symlink("/dev/null", stdout); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(stdout, true); !errors.As(err, &notRegular) || notRegular.What != "a symbolic link to a device" {
		t.Errorf("Create replacing a link to a device: %v", err)
	}
	if target, err := os.Readlink(stdout); err != nil || target != "/dev/null" {
		t.Errorf("the link to a device was replaced: %q, %v", target, err)
	}
}
