package tokenfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadTrimsOneTrailingNewline(t *testing.T) {
	for content, want := range map[string]string{
		"s3cret":                        "s3cret",
		"s3cret\n":                      "s3cret",
		"s3cret\r\n":                    "s3cret",
		"with inner space\n":            "with inner space",
		strings.Repeat("a", MaxSize):    strings.Repeat("a", MaxSize),
		strings.Repeat("a", 100) + "\n": strings.Repeat("a", 100),
	} {
		got, err := Read(write(t, content))
		if err != nil || got != want {
			t.Errorf("%.20q: %.20q, %v; want %.20q", content, got, err, want)
		}
	}
}

func TestReadRefusesWhatIsNotOneToken(t *testing.T) {
	const secret = "do-not-echo-me"
	for content, want := range map[string]string{
		"":                             "is empty",
		"\n":                           "is empty",
		secret + "\n\n":                "more than one line",
		secret + "\nsecond":            "more than one line",
		" " + secret:                   "white space",
		secret + " \n":                 "white space",
		strings.Repeat("a", MaxSize+1): "more than 64 KiB",
	} {
		path := write(t, content)
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%.20q: %v, want an error naming %s and saying %q", content, err, path, want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%.20q: the error quotes the file: %v", content, err)
		}
	}
}

func TestReadWantsARegularFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a missing file: %v", err)
	}
	// A Secret volume's key is a symbolic link to the file: that is fine.
	target := write(t, "s3cret\n")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if got, err := Read(link); err != nil || got != "s3cret" {
		t.Errorf("a link to a token file: %q, %v", got, err)
	}
}

func TestCheck(t *testing.T) {
	for tok, ok := range map[string]bool{"abc": true, "a b": true, "abc\n": false, " abc": false, "a\x00b": false, "a\tb": false} {
		if err := Check(tok); (err == nil) != ok {
			t.Errorf("Check(%q) = %v, want ok %v", tok, err, ok)
		}
	}
}
