//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLogFileIsTheOwnersOnly: --log-file may hold the cluster's objects
// (client-go logs response bodies at -v 8), so only its owner reads it.
func TestLogFileIsTheOwnersOnly(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022)) // the usual umask, which lets others read 0644
	path := filepath.Join(t.TempDir(), "client-go.log")
	closeLog, err := routeClientLogs(path, 8)
	if err != nil {
		t.Fatal(err)
	}
	closeLog()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("the log file is %v, want -rw-------", st.Mode().Perm())
	}
}
