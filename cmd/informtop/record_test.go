package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/recording"
)

// A seeded demo recorded headless (stdout is no terminal) replays twice
// to the same --once --json report, through either queue kind.
func TestRecordDemoThenReplayTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.rec.zst")
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
	// A replay has no discovery: --redact names a recorded resource by
	// its plural, and a name that would match nothing is refused.
	if code, _, stderr := runCLI(t, "replay", path, "--once", "--json", "--redact", "ConfigMaps,secrets"); code != 0 {
		t.Errorf("replay --redact ConfigMaps: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "replay", path, "--once", "--json", "--redact", "cm")
	if code != 2 || !strings.Contains(stderr, "--redact cm: the recording watches no resource of that name") || !strings.Contains(stderr, "configmaps") {
		t.Errorf("replay --redact cm: exit %d, stderr %q; want 2 and the recording's resources", code, stderr)
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
		{[]string{"replay", foreign, "--once"}, "informtop: " + foreign + " is not an informtop recording (it is not zstd-compressed) (at byte 0)"},
		{[]string{"replay", filepath.Join(dir, "none.rec.zst"), "--once"}, "cannot read the recording " + filepath.Join(dir, "none.rec.zst")},
		{[]string{"record", "--demo", "-o", filepath.Join(dir, "no", "such", "dir.rec.zst"), "--duration", "1s"}, "cannot write the recording " + filepath.Join(dir, "no", "such", "dir.rec.zst")},
		{[]string{"record", "--demo", "--duration", "1s"}, "record needs a file to write: add -o FILE"},
		{[]string{"replay", foreign, "--once", "--speed", "-1"}, "--speed must not be negative"},
		{[]string{"replay", foreign, "--once", "--speed", "NaN"}, "--speed takes a number from 0 up, not NaN"},
		{[]string{"replay", foreign, "--once", "--speed", "+Inf"}, "--speed takes a number from 0 up, not +Inf"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
}

// While recording, the dashboard's top line starts with the REC mark and
// the file's size, and the source keeps its controls (pause, step, faults).
func TestRecordingMarkKeepsControls(t *testing.T) {
	o := newOptions()
	o.demo = true
	o.scenario = "steady"
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	src, err := chooseSource(context.Background(), o, fs)
	if err != nil {
		t.Fatal(err)
	}
	if src.inProcess == nil {
		t.Fatal("the demo cannot be recorded")
	}
	w, err := recording.Start(filepath.Join(t.TempDir(), "r.rec.zst"), src.inProcess, o.recordingHeader(src))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	wrapped := recordingShown(src, w)
	f := wrapped.Pull(0, 1)
	if msg := say.Status(f.Status, f.Taken); !strings.HasPrefix(msg, "● REC ") || !strings.HasSuffix(msg, "B") || wrapped.Title() != "demo · steady" {
		t.Errorf("status while recording: %q, title %q", msg, wrapped.Title())
	}
	if wrapped.Controls().Processing == nil {
		t.Error("the recording dashboard lost pause and step")
	}
	if wrapped.Controls().Faults == nil {
		t.Error("the recording dashboard lost the demo's faults")
	}
}

// A recording cut short replays what is complete and says where it
// stopped; one of another format version is refused naming both versions.
func TestReplayCutShortAndOtherVersion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.rec.zst")
	if code, _, stderr := runCLI(t, "record", "--demo", "-o", path, "--duration", "2s"); code != 0 {
		t.Fatalf("record: exit %d, %s", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.rec.zst")
	// Cut within the last flush: the lists, early in the file, are whole.
	if err := os.WriteFile(cut, b[:len(b)-200], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "replay", cut, "--once", "--json")
	if code != 0 || !strings.Contains(stderr, cut+" is cut short at byte ") || !strings.Contains(stdout, `"source": "replay"`) {
		t.Errorf("replay of a cut-short file: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	var other bytes.Buffer
	zw := gzip.NewWriter(&other)
	fmt.Fprintln(zw, `{"format":"informtop-recording","version":7,"informtop":"v9.9.9"}`)
	zw.Close()
	newer := filepath.Join(dir, "newer.rec.zst")
	if err := os.WriteFile(newer, other.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "replay", newer, "--once")
	if code != 2 || !strings.Contains(stderr, newer+" is a version 7 recording (written by informtop v9.9.9); this informtop reads version 2 only") {
		t.Errorf("replay of another version: exit %d, stderr %q", code, stderr)
	}
}
