//go:build unix

package recording

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRecordingIsTheOwnersOnly: a recording holds the cluster's objects,
// so only its owner may read it, also when it replaces a file others
// could read.
func TestRecordingIsTheOwnersOnly(t *testing.T) {
	// The usual umask, which lets others read what is created 0666.
	defer syscall.Umask(syscall.Umask(0o022))
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new.rec.zst")
	old := filepath.Join(dir, "old.rec.zst")
	if err := os.WriteFile(old, []byte("an older recording"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	for _, path := range []string{fresh, old} {
		w, err := Create(path, Header{Informers: []Informer{{Name: "pods"}}}, Replace(path == old))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want -rw-------", filepath.Base(path), st.Mode().Perm())
		}
	}
}

// TestRecordingNeverWritesThroughAPath: an existing file is kept unless
// Replace says otherwise, a symbolic link's target is never created,
// truncated or written (Replace replaces the link itself), and a FIFO is
// refused without waiting, even one that has a reader.
func TestRecordingNeverWritesThroughAPath(t *testing.T) {
	dir := t.TempDir()
	h := Header{Informers: []Informer{{Name: "pods"}}}
	target := filepath.Join(dir, "target")
	const kept = "the link's target, kept"
	if err := os.WriteFile(target, []byte(kept), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.rec.zst")
	dangling := filepath.Join(dir, "dangling.rec.zst")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "created"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{target, link, dangling} {
		if w, err := Create(path, h); err == nil || !strings.Contains(err.Error(), "exists already") || !strings.Contains(err.Error(), "pass --force to replace it") {
			if err == nil {
				_ = w.Close()
			}
			t.Errorf("%s without Replace: %v; want a refusal", filepath.Base(path), err)
		}
	}
	for _, path := range []string{link, dangling} {
		w, err := Create(path, h, Replace(true))
		if err != nil {
			t.Fatalf("%s with Replace: %v", filepath.Base(path), err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s after Replace: %v, %v; want a regular file in the link's place", filepath.Base(path), fi, err)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != kept {
		t.Errorf("the link's target holds %q (%v); want it untouched", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "created")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling link's target was created: %v", err)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	// A reader, opened without waiting for a writer: with it an open for
	// writing would succeed, and write the recording into the pipe.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, replace := range []bool{false, true} {
		if w, err := Create(fifo, h, Replace(replace)); err == nil || !strings.Contains(err.Error(), "it is a named pipe (FIFO), not a regular file") {
			if err == nil {
				_ = w.Close()
			}
			t.Errorf("a FIFO (replace %v): %v; want a refusal", replace, err)
		}
	}
}
