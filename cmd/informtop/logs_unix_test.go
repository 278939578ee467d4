//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// An existing --log-file is appended to only when it is a regular file
// of the user's that only they read: a wider one, a link or a FIFO is
// refused with exit 2 and a sentence, and left as it was.
func TestLogFileRefusesWhatOthersCouldRead(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	dir := t.TempDir()
	wide := filepath.Join(dir, "wide.log")
	private := filepath.Join(dir, "private.log")
	link := filepath.Join(dir, "link.log")
	for p, mode := range map[string]os.FileMode{wide: 0o644, private: 0o600} {
		if err := os.WriteFile(p, []byte("before\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		wide: "--log-file " + wide + " exists and others may read or write it (-rw-r--r--, where only its owner should: -rw-------), and the log holds the cluster's objects; run chmod 600 " + wide + ", or give a new path",
		link: "--log-file " + link + " is a symbolic link, not a regular file",
		fifo: "--log-file " + fifo + " is a named pipe (FIFO), not a regular file",
	} {
		done := make(chan struct{})
		var code int
		var stderr string
		go func() {
			defer close(done)
			code, _, stderr = runCLI(t, "--demo", "--once", "--timeout", "1s", "--log-file", path)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			if r, err := os.OpenFile(path, os.O_RDONLY, 0); err == nil { // release a blocked open
				<-done
				r.Close()
			}
			t.Fatalf("--log-file %s still waits after a minute", filepath.Base(path))
		}
		if code != 2 || !strings.Contains(stderr, "informtop: "+want) {
			t.Errorf("--log-file %s: exit %d, stderr %q; want exit 2 and %q", filepath.Base(path), code, stderr, want)
		}
	}
	if b, err := os.ReadFile(wide); err != nil || string(b) != "before\n" {
		t.Errorf("the refused log holds %q (%v)", b, err)
	}
	if st, err := os.Stat(wide); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("the refused log's mode changed: %v", err)
	}
	closeLog, err := routeClientLogs(private, 4)
	if err != nil {
		t.Fatalf("a private log of the user's: %v", err)
	}
	closeLog()
}
