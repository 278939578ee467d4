package recording

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/internal/benchrun"
	"github.com/informtop/informtop/internal/benchwire"
	"github.com/informtop/informtop/internal/hostile"
)

// allocated is how many bytes f allocated on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// readAll reads data record by record to its end, as a replay does, and
// returns the reader's first error other than io.EOF, and how far into
// the decompressed stream it got.
func readAll(data []byte, name string, l Limits) (read int64, err error) {
	r, err := NewReader(bytes.NewReader(data), name, l)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return r.off, err
		}
	}
}

// TestBombsAreRefused: files of a hundred KB that decompress to gigabytes
// or ask for tens of thousands of informers are refused with a sentence
// saying so, having cost next to nothing.
func TestBombsAreRefused(t *testing.T) {
	cases := []struct {
		name      string
		data      []byte
		want, fix string
	}{
		{"a 3 GB header line", hostile.EndlessHeader(3 << 30),
			"b.rec.zst has a first line longer than 1.0 MB, and a recording's header is far shorter (at byte ", "); the file was damaged or not written by informtop: replay an intact copy, or record again"},
		{"4 records of 900 MB", hostile.HugeRecords(4, 900<<20),
			"b.rec.zst is corrupt or hostile: a record says it takes 944 MB, more than the 268 MB a record may take (record 1, at byte 153 of the decompressed stream)", "; if informtop recorded a list that large, replay it with a higher --max-record"},
		{"20,000 informers", hostile.ManyInformers(20_000, 0),
			"b.rec.zst has a header of 20,000 informers, more than the 1024 a recording may have (at byte ", "); the file was damaged"},
		{"6,000 listeners", hostile.ManyInformers(2, 3_000),
			"b.rec.zst has a header of 6,000 listeners, more than the 4096 a recording may have (at byte ", "); the file was damaged"},
	}
	for _, c := range cases {
		var err error
		start := time.Now()
		n := allocated(func() { _, err = readAll(c.data, "b.rec.zst", Limits{}) })
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.fix) {
			t.Errorf("%s (%d bytes): %v\nwant %q ... %q", c.name, len(c.data), err, c.want, c.fix)
		}
		if n > 64<<20 {
			t.Errorf("%s: refusing it allocated %d MB", c.name, n>>20)
		}
		if !raceOn && took > time.Second {
			t.Errorf("%s: refusing it took %s", c.name, took)
		}
	}
}

// TestStreamBudget: records each within the bound of one record, which
// together decompress to far more than the file's size allows, are
// refused once past it; a file that compresses as recordings do is not.
func TestStreamBudget(t *testing.T) {
	header := hostile.Header + `,"informers":[{"name":"pods","resource":"pods","queue":"RealFIFO"}]}` + "\n"
	// Lists padded with 40 MB of white space, which no field's bound
	// counts.
	bomb := hostile.NewFrame().Raw([]byte(header))
	const token = 40 << 20
	for i := range 8 {
		head := fmt.Sprintf(`{"t":%d,"k":"list","i":"pods","rv":"1"`, i)
		bomb.Raw(binary.AppendUvarint(nil, uint64(len(head)+token+1))).Raw([]byte(head)).Repeat(' ', token).Raw([]byte(`}`))
	}
	data := bomb.Bytes()
	var read int64
	var err error
	n := allocated(func() { read, err = readAll(data, "b.rec.zst", Limits{}) })
	want := fmt.Sprintf("b.rec.zst is corrupt or hostile: its decompressed stream would take more than %s, over 1024 times its compressed size, and recordings compress far less (record 2, at byte ", humanize.Bytes(streamBudget(int64(len(data)))))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%d bytes decompressing to %d MB: %v\nwant %q", len(data), 8*token>>20, err, want)
	}
	if read > streamBudget(int64(len(data))) || n > 4*uint64(streamBudget(int64(len(data)))) {
		t.Errorf("read %d MB and allocated %d MB before refusing it", read>>20, n>>20)
	}
	_, real := wireRecording(t, 100, 400)
	if _, err := readAll(real, "r.rec.zst", Limits{}); err != nil {
		t.Errorf("a recording of pods: %v", err)
	}
}

// wireRecording records, from an API server's wire, initial pods listed
// and events watch events, and returns the file and its bytes.
func wireRecording(t testing.TB, initial, events int) (string, []byte) {
	t.Helper()
	srv, err := benchwire.New(initial, events)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	lw, err := srv.ListerWatcher()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wire.rec.zst")
	w, err := Create(path, Header{Informtop: "test", Informers: []Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO", Listeners: []Listener{{Name: "count"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	benchrun.Wire(t, Tee(lw, "pods", w), initial+events)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// TestRecordsThatDoNotFitAreRefused: a record that does not fit its
// informer's stream — wrong kind, no metadata, an unknown event type, an
// object that does not decode — is refused with its record's number and
// where it starts in the decompressed stream.
func TestRecordsThatDoNotFitAreRefused(t *testing.T) {
	const header = `{"format":"informtop-recording","version":2,"informers":[{"name":"pods","resource":"pods","queue":"RealFIFO"}]}` + "\n"
	frame := func(s string) string { return string(binary.AppendUvarint(nil, uint64(len(s)))) + s }
	pod := func(name, rv string) string {
		b, err := (&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	event := func(typ, obj string) string {
		return frame(`{"t":2,"k":"event","i":"pods","type":"`+typ+`","pbk":"v1/Pod","pb":1}`) + frame(obj)
	}
	jsonEvent := func(typ, obj string) string {
		return frame(`{"t":2,"k":"event","i":"pods","type":"` + typ + `","obj":` + obj + `}`)
	}
	list := frame(`{"t":1,"k":"list","i":"pods","rv":"1","pbk":"v1/Pod","pb":1}`) + frame(pod("a", "1"))
	at := len(header) + len(list) // where the second record starts
	cases := []struct {
		name, records, want string
	}{
		{"garbage protobuf", list + event("MODIFIED", "\xff\xff\xff\xff"), "an object does not decode as a Pod: "},
		{`"obj":"hello"`, list + jsonEvent("MODIFIED", `"hello"`), "an object is not a JSON object"},
		{"no metadata", list + jsonEvent("MODIFIED", `{"kind":"Pod","apiVersion":"v1"}`), "a Pod has no metadata"},
		{"no name", list + event("MODIFIED", pod("", "2")), "a Pod has no name"},
		{"a name of 5 kB", list + event("MODIFIED", pod(strings.Repeat("a", 5000), "2")), "a Pod's name is longer than the 4.1 kB such a field may take"},
		{"a bookmark without a resourceVersion", list + event("BOOKMARK", pod("", "")), "a BOOKMARK event's Pod has no resourceVersion"},
		{"event type EXPLODED", list + event("EXPLODED", pod("a", "2")), `an event is of type "EXPLODED", which is none of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR`},
		{"a Secret in the pods stream", list + jsonEvent("ADDED", `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"}}`), `informer "pods" (resource "pods") holds a v1 Secret, which is not a Pod`},
		{"a ConfigMap in protobuf", list + frame(`{"t":2,"k":"event","i":"pods","type":"ADDED","pbk":"v1/ConfigMap","pb":1}`) + frame(pod("a", "2")), `informer "pods" (resource "pods") holds a v1 ConfigMap, which is not a Pod`},
		{"an ERROR that is no Status", list + event("ERROR", pod("a", "2")), "an ERROR event's object is not a Status"},
		{"a field records do not have", list + frame(`{"t":2,"k":"close","i":"pods","by":"server","why":"x"}`), `a record has a field "why", which records do not have`},
		{"closed by nobody", list + frame(`{"t":2,"k":"close","i":"pods","by":"nobody"}`), `a close record says it was closed by "nobody", neither the server nor the client`},
		{"a negative time", list + frame(`{"t":-2,"k":"watch","i":"pods"}`), "a record has a negative time"},
		{"a watch with objects", list + frame(`{"t":2,"k":"watch","i":"pods","pbk":"v1/Pod","pb":1}`) + frame(pod("a", "2")), "a watch record holds objects"},
		{"a control character in a kind", list + jsonEvent("ADDED", `{"kind":"Pod\u001b[2J","metadata":{"name":"s"}}`), `informer "pods" (resource "pods") holds a "Pod\x1b[2J", which is not a Pod`},
	}
	for _, c := range cases {
		zst := func(s string) []byte {
			var buf bytes.Buffer
			zw, _ := zstd.NewWriter(&buf)
			zw.Write([]byte(s))
			zw.Close()
			return buf.Bytes()
		}
		_, err := readAll(zst(header+c.records), "f.rec.zst", Limits{})
		where := fmt.Sprintf(" (record 2, at byte %d of the decompressed stream); the file was damaged or not written by informtop: replay an intact copy, or record again", at)
		if err == nil || !strings.HasPrefix(err.Error(), "f.rec.zst is corrupt: "+c.want) || !strings.HasSuffix(err.Error(), where) {
			t.Errorf("%s: %v\nwant f.rec.zst is corrupt: %s...%s", c.name, err, c.want, where)
		}
		if !strings.HasPrefix(c.name, "a control") && err != nil && strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 }) {
			t.Errorf("%s: the sentence holds control characters: %q", c.name, err)
		}
	}
}

// TestUnstoredObjectsAreCountedAndLeftOut: where the recorder could not
// store an object it wrote what went wrong; a reader leaves that out of
// the stream and counts it, so that a replay says so.
func TestUnstoredObjectsAreCountedAndLeftOut(t *testing.T) {
	const header = `{"format":"informtop-recording","version":2,"informers":[{"name":"widgets","resource":"widgets.example.com","queue":"RealFIFO"}]}` + "\n"
	frame := func(s string) string { return string(binary.AppendUvarint(nil, uint64(len(s)))) + s }
	widget := func(name string) string {
		return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `","resourceVersion":"1"}}`
	}
	unstored := `{"error":"the API server sent an object that does not decode: boom"}`
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	zw.Write([]byte(header + frame(`{"t":1,"k":"list","i":"widgets","rv":"1","items":[`+widget("a")+`,`+unstored+`,`+widget("b")+`]}`) +
		frame(`{"t":2,"k":"watch","i":"widgets"}`) +
		frame(`{"t":3,"k":"event","i":"widgets","type":"MODIFIED","obj":`+unstored+`}`) +
		frame(`{"t":4,"k":"event","i":"widgets","type":"MODIFIED","obj":`+widget("c")+`}`)))
	zw.Close()
	r, err := NewReader(bytes.NewReader(buf.Bytes()), "w.rec.zst", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		line := string(rec.Kind)
		for _, obj := range rec.Decoded() {
			line += " " + obj.(interface{ GetName() string }).GetName()
		}
		got = append(got, line)
	}
	if s := strings.Join(got, ", "); s != "list a b, watch, event c" {
		t.Errorf("records %s, want the unstored objects left out", s)
	}
	want := `w.rec.zst holds 2 objects the recorder could not store (the first in record 1: "the API server sent an object that does not decode: boom"): the replay leaves them out`
	if s := r.Unstored().Sentence("w.rec.zst"); s != want {
		t.Errorf("%s\nwant %s", s, want)
	}
	rec, err := Decode(bytes.NewReader(buf.Bytes()), "w.rec.zst")
	if err != nil || len(rec.Records) != 3 || len(rec.Records[0].Items) != 2 || rec.Unstored.Objects != 2 {
		t.Errorf("read whole: %v, %+v", err, rec)
	}
}

// TestBitFlipsAreNotReplayedAsIfFine: the file's zstd frame has no
// checksum (see Create), so a flipped bit shows only through what it
// breaks: framing, lengths, fields, objects that no longer decode or fit.
// Every flip in a recording of pods is refused, reported as a cut, or
// leaves the records as they were: the same kinds, informers, event
// types, callbacks, objects and their kinds and metadata fields. What
// such a flip may still change is what an object holds (a digit of its
// name, of an image digest; a field below its metadata), which only a
// checksum could show: those are counted.
func TestBitFlipsAreNotReplayedAsIfFine(t *testing.T) {
	b := podRecording(t)
	rec, err := Decode(bytes.NewReader(b), "r.rec.zst")
	if err != nil {
		t.Fatal(err)
	}
	want, wantAll := skeletonOf(rec)
	const flips = 800
	refused, cut, same, values := 0, 0, 0, 0
	for i := range flips {
		at := 4 + i*(len(b)-4)/flips // past the magic number, which is refused anyway
		flipped := bytes.Clone(b)
		flipped[at] ^= 1 << (i % 8)
		rec, err := Decode(bytes.NewReader(flipped), "f.rec.zst")
		var fe *FileError
		var ve *VersionError
		if errors.As(err, &fe) || errors.As(err, &ve) {
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("bit %d of byte %d: %v, neither a FileError nor a VersionError", i%8, at, err)
		}
		got, all := skeletonOf(rec)
		switch {
		case rec.Stop != nil && strings.HasPrefix(want, got):
			cut++ // and said so: see Stop
		case got != want:
			t.Errorf("bit %d of byte %d: read silently as another recording:\n%s", i%8, at, firstDifference(want, got))
		case all == wantAll:
			same++
		default:
			values++
		}
	}
	t.Logf("%d flips of %d bytes: %d refused, %d read as cut short, %d changed nothing, %d what an object holds", flips, len(b), refused, cut, same, values)
}

// podRecording is a recording of 40 pods listed, a watch, 80 events and
// listener calls, as the writer stores pods from an API server's wire,
// the same bytes every time.
func podRecording(t *testing.T) []byte {
	path := filepath.Join(t.TempDir(), "pods.rec.zst")
	h := Header{Informtop: "test", Source: "bit flips", Started: time.Unix(1_790_000_000, 0).UTC(),
		Informers: []Informer{{Name: "pods", Resource: "pods", Queue: "RealFIFO", Listeners: []Listener{{Name: "slow", Delay: time.Millisecond}}}}}
	w, err := create(path, h, DefaultBuffer) // not started: written here, in order
	if err != nil {
		t.Fatal(err)
	}
	page := Record{T: 1, Kind: KindList, Informer: "pods", Options: &metav1.ListOptions{ResourceVersion: "0"}, RV: "40", ProtoKind: "v1/Pod"}
	for i := range 40 {
		p := benchwire.Pod(i, i+1)
		p.ManagedFields = nil
		b, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		page.Proto = append(page.Proto, b)
	}
	w.write(&entry{rec: page})
	w.write(&entry{rec: Record{T: 2, Kind: KindWatch, Informer: "pods", Options: &metav1.ListOptions{ResourceVersion: "40"}}})
	for i := range 80 {
		raw, err := benchwire.Protobuf(benchwire.Pod(i%40, 41+i))
		if err != nil {
			t.Fatal(err)
		}
		w.write(&entry{rec: Record{T: int64(3 + i), Kind: KindEvent, Informer: "pods", Type: "MODIFIED"}, wire: raw})
		w.write(&entry{rec: Record{T: int64(3 + i), Kind: KindCall, Informer: "pods", Listener: "slow", Callback: "OnUpdate", Key: "ns/pod", RV: strconv.Itoa(41 + i), Duration: int64(time.Millisecond)}})
	}
	w.write(&entry{rec: Record{T: 90, Kind: KindClose, Informer: "pods", By: "server"}})
	go w.loop()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// skeletonOf is what a recording holds, as text: its records' kinds,
// informers, event types, closes and callbacks, and their objects'
// number, kinds and metadata fields; and all of it, the content of
// objects included. An object that does not decode shows as such.
func skeletonOf(rec *Recording) (skeleton, all string) {
	var s, a strings.Builder
	for _, r := range rec.Records {
		line := fmt.Sprintf("%s %s %s %s %s %s", r.Kind, r.Informer, r.Type, r.By, r.Listener, r.Callback)
		s.WriteString(line)
		fmt.Fprintf(&a, "%s %d %s %s %s %d", line, r.T, r.RV, r.Continue, r.Key, r.Duration)
		objs, err := r.Objects()
		if err != nil {
			s.WriteString(" does not decode\n")
			continue
		}
		for _, o := range objs {
			md, _ := o["metadata"].(map[string]any)
			fmt.Fprintf(&s, " %v %v", o["kind"], slices.Sorted(maps.Keys(md)))
			fmt.Fprintf(&a, " %v", o)
		}
		s.WriteByte('\n')
		a.WriteByte('\n')
	}
	return s.String(), fmt.Sprintf("%+v\n", rec.Header) + a.String()
}

// firstDifference shows where two texts part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("%q\nbecame\n%q", a[max(0, i-60):min(len(a), i+60)], b[max(0, i-60):min(len(b), i+60)])
}

// FuzzReader: whatever a file holds, reading it record by record never
// panics, ends in io.EOF or a sentence naming the file, and costs memory
// in proportion to what it decompressed, never to what the file claims.
func FuzzReader(f *testing.F) {
	_, secrets := sample(f, 3)
	_, pods := wireRecording(f, 3, 5)
	for _, b := range [][]byte{secrets, pods, pods[:len(pods)*2/3],
		hostile.EndlessHeader(3 << 30), hostile.HugeRecords(4, 900<<20), hostile.ManyInformers(20_000, 0), hostile.ManyInformers(2, 3_000)} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var read int64
		var err error
		n := allocated(func() { read, err = readAll(data, "fuzz.rec.zst", Limits{MaxRecord: 4 << 20}) })
		if err != nil && !strings.HasPrefix(err.Error(), "fuzz.rec.zst ") {
			t.Fatalf("error %q does not name the file", err)
		}
		// The decompressor's window, the header's line and its parse,
		// then each record's bytes a few times over (its JSON, its
		// decoded objects).
		if limit := uint64(maxWindow + 16*MaxHeader + 64*read); n > limit {
			t.Fatalf("reading %d bytes that decompress to %d allocated %d MB, more than %d MB", len(data), read, n>>20, limit>>20)
		}
	})
}

// TestReaderHoldsOneRecord: reading a recording record by record holds
// about one record besides the decompressor's window, however long the
// file.
func TestReaderHoldsOneRecord(t *testing.T) {
	_, b := wireRecording(t, 100, 20_000)
	r, err := NewReader(bytes.NewReader(b), "r.rec.zst", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before, largest := live(), int64(0)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, rec.Size)
	}
	// The window was allocated with the header, before.
	held, limit := int64(live())-int64(before), 4*largest+1<<20
	if held > limit || r.off < 2*limit {
		t.Errorf("after reading %d KB whose largest record takes %d KB, the reader holds %d KB, more than %d KB", r.off>>10, largest>>10, held>>10, limit>>10)
	}
}

// TestFieldsAreBounded: a record within the bound of a record may not put
// it all in one field: a resourceVersion, a continue token, a key, a
// listener's name, list options, an error, an object's name or
// resourceVersion, even a field's name. Each is refused with a sentence
// naming the field, having cost little more than the record's bytes.
func TestFieldsAreBounded(t *testing.T) {
	const size = 8 << 20
	cases := []struct{ name, record, want string }{
		{"rv", `{"t":1,"k":"list","i":"pods","rv":"@"}`, ` or hostile: a record's "rv" is longer than the 4.1 kB such a field may take`},
		{"continue", `{"t":1,"k":"list","i":"pods","rv":"1","continue":"@"}`, ` or hostile: a record's "continue" is longer than`},
		{"key", `{"t":1,"k":"call","i":"pods","l":"count","cb":"OnAdd","key":"@","d":1}`, ` or hostile: a record's "key" is longer than`},
		{"listener", `{"t":1,"k":"call","i":"pods","l":"@","cb":"OnAdd","key":"a/b","d":1}`, ` or hostile: a record's "l" is longer than`},
		{"escaped rv", `{"t":1,"k":"list","i":"pods","rv":"\u0031@"}`, ` or hostile: a record's "rv" is longer than`},
		{"options", `{"t":1,"k":"watch","i":"pods","opts":{"resourceVersion":"@"}}`, ` or hostile: a record's "opts" is longer than the 16 kB such a field may take`},
		{"error", `{"t":1,"k":"list","i":"pods","err":{"message":"@"}}`, ` or hostile: a record's "err" is longer than the 66 kB such a field may take`},
		{"a field's name", `{"t":1,"k":"list","i":"pods","@":1}`, `: a record has a field "11111111`},
		{"an object's resourceVersion", `{"t":1,"k":"list","i":"pods","rv":"1","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ns","name":"a","resourceVersion":"@"}}]}`,
			` or hostile: a Pod's resourceVersion is longer than the 4.1 kB such a field may take`},
		{"an object's name", `{"t":1,"k":"event","i":"pods","type":"ADDED","obj":{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ns","name":"@"}}}`,
			` or hostile: a Pod's name is longer than`},
	}
	for _, c := range cases {
		var err error
		n := allocated(func() { _, err = readAll(hostile.HugeField(c.record, size), "f.rec.zst", Limits{}) })
		if err == nil || !strings.Contains(err.Error(), "f.rec.zst is corrupt"+c.want) || len(err.Error()) > 1024 {
			got := fmt.Sprint(err)
			if len(got) > 1024 {
				got = fmt.Sprintf("%s… (%d bytes)", got[:512], len(got))
			}
			t.Errorf("%s: %s\nwant %q, in a sentence of at most 1 KiB", c.name, got, c.want)
			continue
		}
		// Refused as it arrives, not once the record is read whole.
		if limit := uint64(4 << 20); n > limit {
			t.Errorf("%s: refusing it allocated %d KB, more than %d", c.name, n>>10, limit>>10)
		}
	}
}
