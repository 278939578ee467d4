//go:build unix

package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Each file a fleet flag names is checked before anything is contacted:
// a device, a FIFO (which would block an open forever), a symlink to
// /dev/zero and a file of 2 GiB are refused at once with exit 2 and a
// sentence naming the flag, never read whole.
func TestFleetRefusesHostileCredentialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil { // sparse: no disk taken
		t.Fatal(err)
	}
	f.Close()
	fine := filepath.Join(dir, "fine")
	if err := os.WriteFile(fine, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hostile := map[string]string{"/dev/zero": "is a device, not a regular file", fifo: "is a named pipe (FIFO), not a regular file",
		link: "is a device, not a regular file", huge: "holds more than "}
	flags := map[string][]string{
		"--bearer-token-file":        nil,
		"--basic-auth-password-file": {"--basic-auth-user", "u"},
		"--ca-file":                  nil,
		"--cert-file":                {"--key-file", fine},
		"--key-file":                 {"--cert-file", fine},
	}
	for flag, more := range flags {
		for path, want := range hostile {
			args := append([]string{"fleet", "--once", "--prometheus", "http://127.0.0.1:1", "--timeout", "1m", flag, path}, more...)
			start := time.Now()
			code, _, stderr := runCLI(t, args...)
			if want := flag + " " + path + " " + want; code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s %s: exit %d, stderr %q; want 2 and %q", flag, path, code, stderr, want)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("%s %s: refused after %s, want at once", flag, path, took)
			}
		}
	}
}

// SIGTERM ends informtop fleet --once while a query waits on a
// Prometheus that never answers: no wait outlives the signal.
func TestFleetOnceEndsOnSIGTERMWhileAQueryWaits(t *testing.T) {
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	asked := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-r.Context().Done() // never answers
	}))
	t.Cleanup(srv.Close)
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "fleet", "--once", "--prometheus", srv.URL, "--timeout", "10m", "--bearer-token-file", tok)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-asked:
	case err := <-done:
		t.Fatalf("informtop ended before asking: %v, stderr %q", err, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "no answer from Prometheus at "+srv.URL+" yet") {
			t.Errorf("after SIGTERM: %v, stderr %q; want exit 1 saying no answer came", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("informtop fleet --once still ran 10s after SIGTERM; stderr %q", stderr.String())
	}
}
