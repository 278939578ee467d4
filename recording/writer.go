package recording

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/internal/ownerfile"
)

// FlushEvery is how often the writer flushes the compressor to the file:
// at most this much of a recording is lost when the process is killed.
const FlushEvery = 200 * time.Millisecond

// DefaultBuffer is how many records may wait for the disk before new ones
// are dropped (and the drop marked in the file).
const DefaultBuffer = 1 << 15

// Writer writes a recording. Its methods never block on the disk: records
// go through a bounded buffer to a goroutine that encodes and compresses
// them. Safe for concurrent use.
type Writer struct {
	path    string
	started time.Time
	now     func() time.Time
	// resources maps each informer of the header to its resource, which
	// decides what is redacted; set before anything records, then only read.
	resources map[string]string

	f    *os.File
	size countingWriter
	zw   *zstd.Encoder // written to directly: it buffers a block itself

	// The hand-off to the writer's goroutine: a slice it drains every
	// drainEvery, so that recording an event costs its producer (the
	// reflector's stream) an append, never a goroutine wake-up.
	mu     sync.Mutex // guards queue, gap and closed
	queue  []entry    // at most buffer long; values, so queuing allocates nothing
	gap    uint64     // records dropped since the last one queued
	closed bool
	buffer int
	kick   chan struct{} // wakes the writer early: queue half full, or Close
	done   chan struct{}

	frame []byte      // the writer goroutine's scratch for frame lengths,
	meta  []byte      // for records' JSON
	wire  wireScratch // and for objects taken from the wire

	dropped atomic.Uint64
	records atomic.Uint64

	errMu sync.Mutex
	err   error // the first write error; nothing is written after it
}

// entry is a record whose object may still be a Go object or the wire's
// bytes: the writer's goroutine redacts and encodes it, off the
// reflector's path.
type entry struct {
	rec  Record
	obj  runtime.Object // an event's object
	list runtime.Object // a page, deep-copied
	wire []byte         // an event's object as the API server sent it
	// gap is how many records were dropped just before this one.
	gap uint64
}

// Stats is what a Writer has done so far.
type Stats struct {
	Records uint64 // written or waiting to be
	Dropped uint64 // lost because the disk fell behind
	Bytes   int64  // compressed bytes in the file so far
	Err     error  // the write error that stopped the recording, if any
}

// Option changes how Create and Start make the file.
type Option func(*options)

type options struct{ replace bool }

// Replace lets the recording replace what exists at its path (a regular
// file or a symbolic link, never written through: record's --force);
// without it an existing path is refused.
func Replace(yes bool) Option { return func(o *options) { o.replace = yes } }

// Create starts a recording at path with its header; the header's Format,
// Version and Started are filled in. The file is new, a regular file only
// its owner reads (see Replace). The error is a sentence naming path.
func Create(path string, h Header, opts ...Option) (*Writer, error) {
	w, err := create(path, h, DefaultBuffer, opts...)
	if err != nil {
		return nil, err
	}
	go w.loop()
	return w, nil
}

// Check says, as Create would, why a recording cannot be made at path
// as things are now, without creating it: record asks before it
// connects to a cluster.
func Check(path string, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := ownerfile.Check(path, o.replace); err != nil {
		return createError(path, err)
	}
	return nil
}

// create opens the file and writes the header; the caller starts loop.
func create(path string, h Header, buffer int, opts ...Option) (*Writer, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := recordable(h); err != nil {
		return nil, fmt.Errorf("cannot record to %s: %w", path, err)
	}
	// A recording holds the cluster's objects: only its owner reads it.
	// A new file, not one truncated: an existing file keeps its mode and
	// owner, and a path may be a link or a FIFO.
	f, err := ownerfile.Create(path, o.replace)
	if err != nil {
		return nil, createError(path, err)
	}
	h.Format, h.Version = FormatName, Version
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
	w := &Writer{path: path, started: h.Started, now: time.Now, f: f, resources: resourcesOf(h),
		buffer: buffer, kick: make(chan struct{}, 1), done: make(chan struct{})}
	w.size.w = f
	// One goroutine compresses (the writer's own): more would only take
	// CPU from the pipeline being recorded. No checksum: a recording is
	// one zstd frame, whose checksum is checked only at its very end, so
	// it would catch nothing a reader has not already served; hashing
	// every small write cost a fifth of the writer's time.
	w.zw, _ = zstd.NewWriter(&w.size, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if w.line(h) == nil {
		_ = w.flush()
	}
	if err := w.Err(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// createError says why the recording cannot be made at path, and what
// to do: the flags are record's.
func createError(path string, err error) error {
	var exists *ownerfile.ExistsError
	var notRegular *ownerfile.NotRegularError
	switch {
	case errors.As(err, &exists):
		return fmt.Errorf("the recording %s exists already (%s); pass --force to replace it, or pick another path with -o", path, exists.What)
	case errors.As(err, &notRegular):
		return fmt.Errorf("cannot write the recording %s: it is %s, not a regular file; pick a path to a file with -o", path, notRegular.What)
	}
	return fmt.Errorf("cannot write the recording %s: %v; pick a path in a writable directory with -o", path, unwrapPath(err))
}

// recordable refuses a header that a replay would refuse to read.
func recordable(h Header) error {
	listeners := 0
	for _, inf := range h.Informers {
		listeners += len(inf.Listeners)
	}
	switch {
	case len(h.Informers) > MaxInformers:
		return fmt.Errorf("a replay builds at most %d informers and this recording would have %d; record fewer resources", MaxInformers, len(h.Informers))
	case listeners > MaxListeners:
		return fmt.Errorf("a replay builds at most %d listeners and this recording would have %d; record fewer resources or listeners", MaxListeners, listeners)
	}
	return nil
}

// Path is the file being written.
func (w *Writer) Path() string { return w.path }

// Since is the time since the recording began, as a record's T.
func (w *Writer) Since() int64 { return int64(w.now().Sub(w.started)) }

// Call records one listener callback and how long it took.
func (w *Writer) Call(informer, listener, callback, key, rv string, d time.Duration) {
	w.add(entry{rec: Record{T: w.Since(), Kind: KindCall, Informer: informer, Listener: listener, Callback: callback, Key: key, RV: rv, Duration: int64(d)}})
}

func (w *Writer) add(e entry) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	if len(w.queue) >= w.buffer {
		w.gap++
		w.mu.Unlock()
		w.dropped.Add(1)
		return
	}
	// The drops since the last record that got through travel with the
	// next one, so the gap is marked where it happened.
	e.gap, w.gap = w.gap, 0
	w.queue = append(w.queue, e)
	n := len(w.queue)
	w.mu.Unlock()
	w.records.Add(1)
	if n == w.buffer/2+1 {
		w.wake()
	}
}

func (w *Writer) wake() {
	select {
	case w.kick <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// drain takes what is queued, handing the queue batch (emptied) to fill
// next; closed says nothing more will come, gap how many were dropped
// since the last record queued.
func (w *Writer) drain(batch []entry) (taken []entry, closed bool, gap uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	taken, w.queue = w.queue, batch[:0]
	if w.closed {
		gap, w.gap = w.gap, 0
	}
	return taken, w.closed, gap
}

// Stats says how far the recording got.
func (w *Writer) Stats() Stats {
	return Stats{Records: w.records.Load(), Dropped: w.dropped.Load(), Bytes: w.size.n.Load(), Err: w.Err()}
}

// Err is the write error that stopped the recording, nil if none.
func (w *Writer) Err() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// Close writes what is buffered, ends the compressed stream and closes
// the file. It returns the first write error.
func (w *Writer) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wake()
	<-w.done
	if w.Err() == nil {
		if err := w.zw.Close(); err != nil {
			w.fail(err)
		}
	}
	if err := w.f.Close(); err != nil {
		w.fail(err)
	}
	return w.Err()
}

// drainEvery is how often the writer's goroutine takes what is queued.
const drainEvery = 10 * time.Millisecond

func (w *Writer) loop() {
	defer close(w.done)
	tick := time.NewTicker(drainEvery)
	defer tick.Stop()
	var batch []entry
	flushed := time.Now()
	for {
		select {
		case <-tick.C:
		case <-w.kick:
		}
		taken, closed, gap := w.drain(batch)
		for i := range taken {
			w.write(&taken[i])
			taken[i] = entry{} // lets the objects go before the slice is refilled
		}
		batch = taken
		if closed {
			if gap > 0 {
				_ = w.record(Record{T: w.Since(), Kind: KindGap, Dropped: gap}, nil)
			}
			return
		}
		if time.Since(flushed) >= FlushEvery {
			_ = w.flush()
			flushed = time.Now()
		}
	}
}

func (w *Writer) write(e *entry) {
	if e.gap > 0 {
		_ = w.record(Record{T: e.rec.T, Kind: KindGap, Dropped: e.gap}, nil)
	}
	resource := w.resources[e.rec.Informer]
	if e.obj != nil {
		e.rec.Object = encodeObject(resource, e.obj)
	}
	var pieces [][]byte
	if e.wire != nil {
		pieces = fromWire(resource, e.wire, &e.rec, &w.wire)
	}
	if e.list != nil {
		items, _ := meta.ExtractList(e.list)
		e.rec.Items = make([]json.RawMessage, len(items))
		// ExtractList's items point into the list, which is the writer's copy.
		for i, it := range items {
			e.rec.Items[i] = encodeObject(resource, it)
		}
	}
	_ = w.record(e.rec, pieces)
}

// record writes r as one frame: its JSON's length and the JSON, then each
// of its protobuf objects' length and bytes (see the package doc). pieces,
// when not nil, is one more protobuf object, in pieces.
func (w *Writer) record(r Record, pieces [][]byte) error {
	if err := w.Err(); err != nil {
		return err
	}
	r.ProtoCount = len(r.Proto)
	if pieces != nil {
		r.ProtoCount++
	}
	b, ok := appendEventJSON(w.meta[:0], &r)
	if ok {
		w.meta = b
	} else {
		var err error
		if b, err = json.Marshal(r); err != nil {
			// Only an object json cannot encode gets here; keep going.
			return nil
		}
	}
	if err := w.chunk(b); err != nil {
		return err
	}
	for _, pb := range r.Proto {
		if err := w.chunk(pb); err != nil {
			return err
		}
	}
	if pieces != nil {
		return w.chunk(pieces...)
	}
	return nil
}

// chunk writes the length of its pieces together, then the pieces.
func (w *Writer) chunk(pieces ...[]byte) error {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	w.frame = binary.AppendUvarint(w.frame[:0], uint64(n))
	_, err := w.zw.Write(w.frame)
	for _, p := range pieces {
		if err != nil {
			break
		}
		_, err = w.zw.Write(p)
	}
	if err != nil {
		w.fail(err)
	}
	return err
}

// line writes v as one JSON line (the header), unless an earlier write
// failed.
func (w *Writer) line(v any) error {
	if err := w.Err(); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Only an object json cannot encode gets here; keep going.
		return nil
	}
	b = append(b, '\n')
	if _, err := w.zw.Write(b); err != nil {
		w.fail(err)
		return err
	}
	return nil
}

func (w *Writer) flush() error {
	if err := w.Err(); err != nil {
		return err
	}
	if err := w.zw.Flush(); err != nil {
		w.fail(err)
		return err
	}
	return nil
}

func (w *Writer) fail(err error) {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if w.err == nil {
		w.err = fmt.Errorf("cannot write the recording %s: %v; what was written before replays", w.path, unwrapPath(err))
	}
}

// encodeObject is obj, an object of resource, as the source shows it:
// managedFields stripped, secret values redacted as the resource asks, and
// its kind named even when the informer's typed objects dropped their
// TypeMeta (a replay needs the kind). obj is the writer's own copy, so it
// may be changed: that spares all but what is redacted a round trip
// through a generic map.
func encodeObject(resource string, obj runtime.Object) json.RawMessage {
	kind := redact.Kind(obj)
	policy := redact.Current()
	if acc, err := meta.Accessor(obj); err == nil && !policy.Needed(resource, obj) {
		acc.SetManagedFields(nil)
		if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind == "" {
			gvk.Kind = kind
			obj.GetObjectKind().SetGroupVersionKind(gvk)
		}
		if b, err := json.Marshal(obj); err == nil {
			return b
		}
	}
	m, raw, err := policy.Map(resource, obj)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return b
	}
	if m == nil {
		return raw
	}
	if k, _ := m["kind"].(string); k == "" {
		m["kind"] = kind
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// failureOf keeps an error's message and, when the server sent one, its status.
func failureOf(err error) *Failure {
	f := &Failure{Message: err.Error(), Refused: utilnet.IsConnectionRefused(err)}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s := st.Status()
		f.Status = &s
	}
	return f
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// appendEventJSON appends r's JSON to b when r is a watch event whose
// object is in protobuf, the bulk of a recording, as json.Marshal would
// write it but without its reflection; ok is false for any other record.
func appendEventJSON(b []byte, r *Record) ([]byte, bool) {
	// TestEventJSONIsMarshals keeps this list of fields whole.
	other := r.Options != nil || r.Err != nil || r.RV != "" || r.Continue != "" || r.Items != nil ||
		r.Object != nil || r.By != "" || r.Listener != "" || r.Callback != "" || r.Key != "" ||
		r.Duration != 0 || r.Dropped != 0
	if other || r.Kind != KindEvent || r.ProtoKind == "" || r.Informer == "" || r.Type == "" ||
		!plainJSON(r.Informer) || !plainJSON(r.Type) || !plainJSON(r.ProtoKind) {
		return b, false
	}
	b = append(b, `{"t":`...)
	b = strconv.AppendInt(b, r.T, 10)
	b = append(b, `,"k":"event","i":"`...)
	b = append(b, r.Informer...)
	b = append(b, `","type":"`...)
	b = append(b, r.Type...)
	b = append(b, `","pbk":"`...)
	b = append(b, r.ProtoKind...)
	b = append(b, `","pb":`...)
	b = strconv.AppendInt(b, int64(r.ProtoCount), 10)
	return append(b, '}'), true
}

// plainJSON: s needs no escaping in a JSON string.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// resourcesOf maps each informer of h to its resource.
func resourcesOf(h Header) map[string]string {
	m := make(map[string]string, len(h.Informers))
	for _, i := range h.Informers {
		m[i.Name] = i.Resource
	}
	return m
}
