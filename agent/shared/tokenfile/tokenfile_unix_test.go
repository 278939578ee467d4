//go:build unix

package tokenfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe is refused without being opened: opening it would wait
// for a writer, and the test would hang instead of fail.
func TestReadRefusesANamedPipeWithoutWaiting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "is a named pipe") {
		t.Errorf("a named pipe: %v", err)
	}
	if _, err := Read("/dev/null"); err == nil || !strings.Contains(err.Error(), "is a device") {
		t.Errorf("/dev/null: %v", err)
	}
}

func TestReadSaysWhenPermissionIsDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte("s3cret"), 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("an unreadable file: %v", err)
	}
}
