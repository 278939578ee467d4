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

// record -o keeps what exists unless --force is given, and then replaces
// a link rather than writing through it; each refusal is exit 2 and a
// sentence naming the flags.
func TestRecordKeepsWhatExists(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.rec.zst")
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link.rec.zst")
	dangling := filepath.Join(dir, "dangling.rec.zst")
	for _, p := range []string{old, target} {
		if err := os.WriteFile(p, []byte("kept"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "created"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{old, link, dangling} {
		code, _, stderr := runCLI(t, "record", "--demo", "-o", path, "--duration", "1s")
		if code != 2 || !strings.Contains(stderr, "informtop: the recording "+path+" exists already") || !strings.Contains(stderr, "pass --force to replace it, or pick another path with -o") {
			t.Errorf("record -o %s: exit %d, stderr %q; want exit 2 and a sentence naming --force", filepath.Base(path), code, stderr)
		}
	}
	// Said before connecting to a cluster, here one that is not there.
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\ncontexts: [{name: c, context: {cluster: c}}]\ncurrent-context: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "record", "--kubeconfig", kubeconfig, "-o", old, "--duration", "1s"); code != 2 || !strings.Contains(stderr, "informtop: the recording "+old+" exists already") {
		t.Errorf("record -o an existing file from a cluster: exit %d, stderr %q; want the refusal before connecting", code, stderr)
	}
	for _, p := range []string{old, target} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "kept" {
			t.Errorf("%s holds %q (%v); want it untouched", filepath.Base(p), b, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "created")); !os.IsNotExist(err) {
		t.Errorf("the dangling link's target was created: %v", err)
	}

	for _, path := range []string{old, link} {
		code, _, stderr := runCLI(t, "record", "--demo", "-o", path, "--duration", "100ms", "--force")
		if code != 0 {
			t.Fatalf("record --force -o %s: exit %d, stderr %q", filepath.Base(path), code, stderr)
		}
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s after --force: %v, %v; want a regular file, -rw-------", filepath.Base(path), fi, err)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "kept" {
		t.Errorf("the link's target holds %q (%v) after --force; want it untouched", b, err)
	}
}

// record -o FIFO is refused at once (exit 2), rather than waiting forever
// for a reader, deaf to ctrl+c and SIGTERM.
func TestRecordRefusesAFIFOAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := runCLI(t, "record", "--demo", "-o", fifo, "--duration", "1s", "--force")
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		if r.code != 2 || !strings.Contains(r.stderr, "cannot write the recording "+fifo+": it is a named pipe (FIFO), not a regular file; pick a path to a file with -o") {
			t.Errorf("exit %d, stderr %q; want exit 2 and a sentence", r.code, r.stderr)
		}
	case <-time.After(time.Minute):
		// Release the blocked open before failing, so that nothing is left.
		if r, err := os.OpenFile(fifo, os.O_RDONLY, 0); err == nil {
			<-done
			r.Close()
		}
		t.Fatal("record -o FIFO still waits after a minute")
	}
}
