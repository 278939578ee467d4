package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A seeded demo recorded headless (stdout is no terminal) replays twice
// to the same --once --json report, through either queue kind.
func TestRecordDemoThenReplayTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.rec.gz")
	code, stdout, stderr := runCLI(t, "record", "--demo", "--seed", "5", "-o", path, "--duration", "2s")
	if code != 0 || stdout != "" {
		t.Fatalf("record: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "recording demo · steady to "+path) || !strings.Contains(stderr, "replay it with informtop replay "+path) {
		t.Errorf("record's progress on stderr: %q", stderr)
	}
	code, first, stderr := runCLI(t, "replay", path, "--once", "--json")
	if code != 0 || !strings.Contains(first, `"source": "replay"`) || !strings.Contains(first, `"name": "pods"`) {
		t.Fatalf("replay: exit %d, stderr %q, report:\n%s", code, stderr, first)
	}
	if _, second, _ := runCLI(t, "replay", path, "--once", "--json"); second != first {
		t.Errorf("the same recording replayed to two reports:\n%s\n---\n%s", first, second)
	}
	code, other, stderr := runCLI(t, "replay", path, "--once", "--json", "--queue", "DeltaFIFO")
	if code != 0 || !strings.Contains(other, `"queueKind": "DeltaFIFO"`) {
		t.Errorf("replay through a DeltaFIFO: exit %d, stderr %q, report:\n%s", code, stderr, other)
	}
}

// Bad input: each one sentence naming the file, exit 2.
func TestReplayRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "pod.yaml")
	if err := os.WriteFile(foreign, []byte("kind: Pod\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"replay", foreign, "--once"}, "informtop: " + foreign + " is not an informtop recording (it is not gzip-compressed) (at byte 0)"},
		{[]string{"replay", filepath.Join(dir, "none.rec.gz"), "--once"}, "cannot read the recording " + filepath.Join(dir, "none.rec.gz")},
		{[]string{"record", "--demo", "-o", filepath.Join(dir, "no", "such", "dir.rec.gz"), "--duration", "1s"}, "cannot write the recording " + filepath.Join(dir, "no", "such", "dir.rec.gz")},
		{[]string{"record", "--demo", "--duration", "1s"}, "record needs a file to write: add -o FILE"},
		{[]string{"replay", foreign, "--once", "--speed", "-1"}, "--speed must not be negative"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
}
