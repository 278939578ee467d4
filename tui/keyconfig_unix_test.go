//go:build unix

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadPromptly loads the key map at path on another goroutine and fails
// the test if that does not return within a generous bound: a FIFO used
// to block the dashboard's start forever, /dev/zero to fill memory.
func loadPromptly(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := loadKeyMap(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("loading the key map %s did not return within 30s", path)
		return nil
	}
}

func TestKeyMapRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.yaml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	err := loadPromptly(t, path)
	if err == nil || !strings.Contains(err.Error(), "key map "+path+" is a named pipe (FIFO), not a regular file; point it at a YAML file") {
		t.Fatalf("a FIFO as key map: %v", err)
	}
}

func TestKeyMapRefusesASymlinkToDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	path := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	err := loadPromptly(t, path)
	if err == nil || !strings.Contains(err.Error(), "key map "+path+" is a device, not a regular file") {
		t.Fatalf("a symlink to /dev/zero as key map: %v", err)
	}
}
