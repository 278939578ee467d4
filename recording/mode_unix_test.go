//go:build unix

package recording

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRecordingIsTheOwnersOnly: a recording holds the cluster's objects,
// so only its owner may read it, also when it overwrites a file others
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
		w, err := Create(path, Header{Informers: []Informer{{Name: "pods"}}})
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
