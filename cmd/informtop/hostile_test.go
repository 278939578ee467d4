package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/informtop/informtop/internal/hostile"
)

// TestReplayRefusesBombsUnderAMemoryCap: the real binary, limited to 1 GiB
// of address space, refuses each file crafted to take the machine — a 3 GB
// header line without a newline, four records of 900 MB, 20,000
// informers, each about 100 KB on disk; a record within its bound whose
// resourceVersion (its own, or its object's) takes 250 MiB, 270 KB on
// disk — with exit code 2 and a sentence saying what is wrong, promptly.
func TestReplayRefusesBombsUnderAMemoryCap(t *testing.T) {
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"header.rec.zst", " has a first line longer than 1.0 MB, and a recording's header is far shorter (at byte ", hostile.EndlessHeader(3 << 30)},
		{"records.rec.zst", " is corrupt or hostile: a record says it takes 944 MB, more than the 268 MB a record may take (record 1, at byte 153 of the decompressed stream); if informtop recorded a list that large, replay it with a higher --max-record", hostile.HugeRecords(4, 900<<20)},
		{"informers.rec.zst", " has a header of 20,000 informers, more than the 1024 a recording may have (at byte ", hostile.ManyInformers(20_000, 0)},
		{"field.rec.zst", ` is corrupt or hostile: a record's "rv" is longer than the 4.1 kB such a field may take (record 1, at byte 153 of the decompressed stream)`,
			hostile.HugeField(`{"t":1,"k":"list","i":"pods","rv":"@"}`, 250<<20)},
		{"object.rec.zst", ` is corrupt or hostile: a Pod's resourceVersion is longer than the 4.1 kB such a field may take (record 1, at byte 153 of the decompressed stream)`,
			hostile.HugeField(`{"t":1,"k":"list","i":"pods","rv":"1","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ns","name":"a","resourceVersion":"@"}}]}`, 250<<20)},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o600); err != nil {
			t.Fatal(err)
		}
		// ulimit -v caps the address space, which glibc's per-thread
		// malloc arenas (64 MB each, reserved, not used) would take in a
		// binary built with cgo: one arena keeps the cap about Go's heap.
		cmd := exec.Command("bash", "-c", `ulimit -v 1048576 && exec "$0" replay "$1" --once`, bin, path)
		cmd.Env = append(os.Environ(), "MALLOC_ARENA_MAX=1", "HOME="+dir, "XDG_CONFIG_HOME="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "informtop: "+path+c.want) || strings.Contains(stderr.String(), "fatal error") {
			t.Errorf("%s (%d KB): %v, stderr:\n%s\nwant exit 2 and %q", c.name, len(c.data)>>10, err, stderr.String(), c.want)
		}
		if !raceOn && took > 2*time.Second {
			t.Errorf("%s: refused in %s, want under 2s", c.name, took)
		}
	}
}

// frames is a recording's decompressed stream, zstd-compressed: the
// header line, then each record framed as the writer frames it.
func frames(t *testing.T, header string, records ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for _, r := range records {
		b.Write(binary.AppendUvarint(nil, uint64(len(r))))
		b.WriteString(r)
	}
	return compress(t, b.Bytes())
}

// at is where the last of records starts in the decompressed stream.
func at(header string, records ...string) int {
	n := len(header) + 1
	for _, r := range records[:len(records)-1] {
		n += len(binary.AppendUvarint(nil, uint64(len(r)))) + len(r)
	}
	return n
}

func compress(t *testing.T, stream []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(stream); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

const widgetsHeader = `{"format":"informtop-recording","version":2,"informers":[{"name":"widgets","resource":"widgets.example.com","queue":"RealFIFO"}]}`

func widget(name, rv string) string {
	return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"namespace":"ns","name":"` + name + `","resourceVersion":"` + rv + `"}}`
}

// TestReplayRefusesWhatDoesNotFit: a record that does not fit its stream
// is refused with exit code 2, a sentence naming it and where it starts,
// and no report; objects the recorder could not store are left out and
// said so; a record over --max-record is refused saying how to raise it.
func TestReplayRefusesWhatDoesNotFit(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	list := `{"t":1,"k":"list","i":"widgets","rv":"2","items":[` + widget("a", "1") + `,` + widget("b", "2") + `]}`
	watch := `{"t":2,"k":"watch","i":"widgets","opts":{"resourceVersion":"2"}}`
	secret := `{"t":3,"k":"event","i":"widgets","type":"ADDED","obj":{"apiVersion":"v1","kind":"Secret","metadata":{"namespace":"ns","name":"s"}}}`
	bad := write("bad.rec.zst", frames(t, widgetsHeader, list, watch, secret))
	code, stdout, stderr := runCLI(t, "replay", bad, "--once", "--json")
	want := fmt.Sprintf("informtop: %s is corrupt: informer \"widgets\" (resource \"widgets.example.com\") holds a v1 Secret, which is not of group \"example.com\" (record 3, at byte %d of the decompressed stream); the file was damaged or not written by informtop: replay an intact copy, or record again\n", bad, at(widgetsHeader, list, watch, secret))
	if code != 2 || stderr != want || stdout != "" {
		t.Errorf("a Secret among widgets: exit %d, stdout %q, stderr %q\nwant exit 2 and %q", code, stdout, stderr, want)
	}

	unstored := `{"t":3,"k":"event","i":"widgets","type":"ADDED","obj":{"error":"the API server sent a Gadget, which this informtop does not know"}}`
	lost := write("lost.rec.zst", frames(t, widgetsHeader, list, watch, unstored))
	code, stdout, stderr = runCLI(t, "replay", lost, "--once", "--json")
	want = "informtop: " + lost + ` holds 1 object the recorder could not store (the first in record 3: "the API server sent a Gadget, which this informtop does not know"): the replay leaves it out`
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stdout, `"objects": 2`) {
		t.Errorf("an object not stored: exit %d, stderr %q, want exit 0 and %q; report:\n%s", code, stderr, want, stdout)
	}

	big := write("big.rec.zst", frames(t, widgetsHeader, `{"t":1,"k":"list","i":"widgets","rv":"1","continue":"`+strings.Repeat("x", 200<<10)+`"}`))
	code, _, stderr = runCLI(t, "replay", big, "--once", "--max-record", "100Ki")
	want = fmt.Sprintf("informtop: %s is corrupt or hostile: a record says it takes 205 kB, more than the 102 kB a record may take (record 1, at byte %d of the decompressed stream); if informtop recorded a list that large, replay it with a higher --max-record", big, len(widgetsHeader)+1)
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("a record over --max-record: exit %d, stderr %q\nwant %q", code, stderr, want)
	}
	if code, _, stderr := runCLI(t, "replay", big, "--once", "--max-record", "lots"); code != 2 || !strings.Contains(stderr, `invalid value "lots" for --max-record: a size such as 512Mi or 1Gi`) {
		t.Errorf("--max-record lots: exit %d, stderr %q", code, stderr)
	}
}
