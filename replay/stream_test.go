package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/recording"
)

// TestReplayStreamsWithinItsBudget: a replay reads its file as it goes,
// a bounded way ahead of what it serves, and ends as one that had read
// it all first.
func TestReplayStreamsWithinItsBudget(t *testing.T) {
	path, _ := recordDemo(t, 400)
	whole := replayOnce(t, path, Options{})
	largest, size := int64(0), int64(0)
	r, err := recording.Open(path, recording.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		largest, size = max(largest, rec.Size), size+rec.Size
	}
	r.Close()

	defer func(b int64) { feedBudget = b }(feedBudget)
	feedBudget = 4 << 10
	if size < 10*feedBudget {
		t.Fatalf("the recording takes %d bytes: too few to be read in parts of %d", size, feedBudget)
	}
	r, err = recording.Open(path, recording.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Read():
		t.Error("New read the whole file before the replay began")
	default:
	}
	if used := s.budget.used; used > feedBudget+largest {
		t.Errorf("New read %d bytes ahead, more than %d and a record", used, feedBudget)
	}
	s.Close()

	streamed := replayOnce(t, path, Options{})
	for name, st := range whole.stores {
		if d := diff(st, streamed.stores[name]); d != "" {
			t.Errorf("informer %s's store differs when read in parts: %s", name, d)
		}
	}
	for id, calls := range whole.calls {
		if d := diff(calls, streamed.calls[id]); d != "" {
			t.Errorf("listener %s's callbacks differ when read in parts: %s", id, d)
		}
	}
}

// frames is a recording's decompressed stream: the header line, then
// each record's JSON and objects as the writer frames them.
func frames(header string, records ...string) []byte {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	for _, r := range records {
		b.Write(binary.AppendUvarint(nil, uint64(len(r))))
		b.WriteString(r)
	}
	return b.Bytes()
}

// writeRecording writes stream, zstd-compressed, as a file named name.
func writeRecording(t *testing.T, name string, stream []byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(stream); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const widgetsHeader = `{"format":"informtop-recording","version":2,"informers":[{"name":"widgets","resource":"widgets.example.com","queue":"RealFIFO"}]}`

func widget(name, rv string) string {
	return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"namespace":"ns","name":"` + name + `","resourceVersion":"` + rv + `"}}`
}

// logged is what the replay's log says went wrong.
func logged(s *Source) string {
	var out []string
	for _, ev := range s.Pull(0, 0).Events {
		if ev.Type == source.EventError {
			out = append(out, ev.Detail)
		}
	}
	return strings.Join(out, "\n")
}

// TestReplayRefusesARecordMidway: a record that does not fit, found once
// the replay has begun, stops it: serving ends there, Settled returns the
// sentence naming the record and its byte in the decompressed stream, and
// the replay's notes and log say so.
func TestReplayRefusesARecordMidway(t *testing.T) {
	list := `{"t":1,"k":"list","i":"widgets","rv":"2","items":[` + widget("a", "1") + `,` + widget("b", "2") + `]}`
	watch := `{"t":2,"k":"watch","i":"widgets","opts":{"resourceVersion":"2"}}`
	good := `{"t":3,"k":"event","i":"widgets","type":"MODIFIED","obj":` + widget("a", "3") + `}`
	bad := `{"t":4,"k":"event","i":"widgets","type":"EXPLODED","obj":` + widget("a", "4") + `}`
	stream := frames(widgetsHeader, list, watch, good, bad, good)
	at := bytes.Index(stream, []byte(bad)) - len(binary.AppendUvarint(nil, uint64(len(bad)))) // where its length starts
	path := writeRecording(t, "bad.rec.zst", stream)
	r, err := recording.Open(path, recording.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(r, Options{})
	if err != nil {
		t.Fatalf("New read past the first object: %v", err)
	}
	defer s.Close()
	wctx, stop := run(s)
	defer stop()
	err = s.SettledWithin(wctx, testTimeout)
	want := fmt.Sprintf(`%s is corrupt: an event is of type "EXPLODED", which is none of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR (record 4, at byte %d of the decompressed stream); the file was damaged or not written by informtop: replay an intact copy, or record again`, path, at)
	var fe *recording.FileError
	if !errors.As(err, &fe) || err.Error() != want {
		t.Fatalf("settled: %v\nwant %s", err, want)
	}
	if !errors.Is(s.Err(), err) {
		t.Errorf("Err %v", s.Err())
	}
	if notes := strings.Join(s.notes(), "\n"); !strings.Contains(notes, "the replay stopped: "+want) {
		t.Errorf("notes:\n%s", notes)
	}
	// Logged before Settled has the error: whoever it wakes finds it.
	if log := logged(s); !strings.Contains(log, "the replay stops here: "+want) {
		t.Errorf("log:\n%s", log)
	}
}

// TestReplaySaysWhatItLeftOut: objects the recorder could not store are
// left out of the replay, which says how many in its notes and log.
func TestReplaySaysWhatItLeftOut(t *testing.T) {
	unstored := `{"error":"the API server sent a Gadget, which this informtop does not know"}`
	stream := frames(widgetsHeader,
		`{"t":1,"k":"list","i":"widgets","rv":"2","items":[`+widget("a", "1")+`,`+unstored+`]}`,
		`{"t":2,"k":"watch","i":"widgets","opts":{"resourceVersion":"2"}}`,
		`{"t":3,"k":"event","i":"widgets","type":"ADDED","obj":`+unstored+`}`,
		`{"t":4,"k":"event","i":"widgets","type":"MODIFIED","obj":`+widget("a", "4")+`}`)
	path := writeRecording(t, "w.rec.zst", stream)
	r, err := recording.Open(path, recording.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wctx, stop := run(s)
	defer stop()
	if err := s.SettledWithin(wctx, testTimeout); err != nil {
		t.Fatal(err)
	}
	if st := storeOf(s.Informers()[0]); strings.Join(st, " ") != "ns/a@4" {
		t.Errorf("store %v", st)
	}
	want := `w.rec.zst holds 2 objects the recorder could not store (the first in record 1: "the API server sent a Gadget, which this informtop does not know"): the replay leaves them out`
	if notes := strings.Join(s.notes(), "\n"); !strings.Contains(notes, want) {
		t.Errorf("notes:\n%s\nwant %s", notes, want)
	}
	if log := logged(s); !strings.Contains(log, strings.Replace(want, "w.rec.zst", path, 1)) {
		t.Errorf("log:\n%s", log)
	}
	if u := s.Unstored(); u.Objects != 2 {
		t.Errorf("unstored %+v", u)
	}
}

// TestFailuresAreShownQuoted: a recorded failure's message reaches the
// dashboard's log; one holding control characters, which could drive the
// terminal, is quoted.
func TestFailuresAreShownQuoted(t *testing.T) {
	stream := frames(widgetsHeader,
		`{"t":1,"k":"list","i":"widgets","err":{"message":"boom\u001b[2J\u001b]0;pwned\u0007"}}`,
		`{"t":2,"k":"list","i":"widgets","rv":"1","items":[`+widget("a", "1")+`]}`,
		`{"t":3,"k":"watch","i":"widgets","opts":{"resourceVersion":"1"}}`,
		`{"t":4,"k":"event","i":"widgets","type":"ERROR","obj":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"gone\u001b[2J","reason":"Expired","code":410}}`)
	path := writeRecording(t, "w.rec.zst", stream)
	r, err := recording.Open(path, recording.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wctx, stop := run(s)
	defer stop()
	if err := s.Finished(wctx); err != nil {
		t.Fatal(err)
	}
	var log []string
	for _, ev := range s.Pull(0, 0).Events {
		log = append(log, ev.Detail)
	}
	all := strings.Join(log, "\n")
	if strings.Contains(all, "\x1b") || !strings.Contains(all, `boom\x1b[2J\x1b]0;pwned\a`) {
		t.Errorf("the log shows the recorded failure unquoted, or not at all:\n%q", all)
	}
}
