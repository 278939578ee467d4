package recording

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// Recording is a file read back whole: its header and its complete records.
type Recording struct {
	Path    string
	Header  Header
	Records []Record
	// Stop is set when the file ends in the middle of a record (a
	// recording cut short): Records holds what was complete.
	Stop *Stop
	// Size is the file's size in bytes.
	Size int64
	// Unstored counts the objects the recorder could not store (see
	// Reader.Unstored), left out of Records.
	Unstored Unstored
}

// Stop says where a cut-short recording ends.
type Stop struct {
	// Offset is the byte of the file where reading stopped.
	Offset int64
	// Records is how many complete records were read; At is the time of
	// the last one.
	Records int
	At      time.Duration
}

// Sentence says what a replay of a cut-short file does, naming it.
func (s Stop) Sentence(path string) string {
	return fmt.Sprintf("%s is cut short at byte %d: replaying its %s, up to %s into the recording", path, s.Offset, humanize.Plural(s.Records, "complete record"), humanize.Elapsed(s.At, time.Millisecond))
}

// Unstored counts the objects the recorder could not store: in their
// place the file holds what went wrong ({"error": "..."}), which a replay
// cannot serve, so readers leave them out and say so.
type Unstored struct {
	Objects int
	// First is the first one's message, Record where it was (counting
	// from 1 after the header).
	First  string
	Record int
}

// Sentence says what a replay leaves out, naming the file; "" if nothing.
func (u Unstored) Sentence(path string) string {
	if u.Objects == 0 {
		return ""
	}
	return fmt.Sprintf("%s holds %s the recorder could not store (the first in record %d: %q): the replay leaves %s out",
		path, humanize.Plural(u.Objects, "object"), u.Record, u.First, map[bool]string{true: "it", false: "them"}[u.Objects == 1])
}

// FileError is a file that cannot be replayed: not a recording, corrupt,
// or past a bound of what reading may cost.
type FileError struct {
	Path string
	// Offset is the file's byte where reading had got to when the problem
	// became clear.
	Offset int64
	// Record is the record at fault, counting from 1 after the header; 0
	// when the problem is not one record's. Stream is where that record
	// starts in the decompressed stream (0 when it was not read from one).
	Record int
	Stream int64
	// Problem says what is wrong, Fix what to do about it.
	Problem string
	Fix     string
}

func (e *FileError) Error() string {
	where := fmt.Sprintf("at byte %d", e.Offset)
	switch {
	case e.Record > 0 && e.Stream > 0:
		where = fmt.Sprintf("record %d, at byte %d of the decompressed stream", e.Record, e.Stream)
	case e.Record > 0:
		where = fmt.Sprintf("record %d", e.Record)
	}
	s := fmt.Sprintf("%s %s (%s)", e.Path, e.Problem, where)
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

// What to do about a file that is refused.
const (
	fixDamaged = "the file was damaged or not written by informtop: replay an intact copy, or record again"
	fixForeign = "replay a file written by informtop record"
)

// VersionError is a recording in a format version this build cannot read.
type VersionError struct {
	Path      string
	Version   int
	Informtop string // the informtop that wrote it
}

func (e *VersionError) Error() string {
	reads := make([]string, len(Reads))
	for i, v := range Reads {
		reads[i] = strconv.Itoa(v)
	}
	by := ""
	if e.Informtop != "" {
		by = fmt.Sprintf(" (written by informtop %s)", printable(e.Informtop))
	}
	return fmt.Sprintf("%s is a version %d recording%s; this informtop reads version %s only: replay it with an informtop that reads version %d",
		e.Path, e.Version, by, strings.Join(reads, ", "), e.Version)
}

// Read reads the whole recording at path, checked as a Reader checks it;
// its records keep their objects' bytes (see Record.Objects), not the
// decoded objects. A file cut short is no error: see Recording.Stop.
// Errors are sentences naming the file. A replay streams the file with
// Open instead.
func Read(path string) (*Recording, error) {
	r, err := Open(path, Limits{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.keep = true
	rec, err := r.all()
	if rec != nil {
		rec.Size = r.size
	}
	return rec, err
}

// Decode reads a whole recording from r; name is how errors call it.
func Decode(r io.Reader, name string) (*Recording, error) {
	rd, err := NewReader(r, name, Limits{})
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	rd.keep = true
	return rd.all()
}

func (r *Reader) all() (*Recording, error) {
	out := &Recording{Path: r.name, Header: r.Header}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			out.Stop, out.Unstored = r.Stop(), r.Unstored()
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out.Records = append(out.Records, rec)
	}
}

// Reader reads a recording record by record, checking each (its framing,
// its fields, that its objects decode and fit their informer's stream)
// and decoding its objects once, so that what reaches a replay is sound.
// It holds one record at a time, within Limits, and refuses a file whose
// decompressed stream grows far beyond what its size allows.
type Reader struct {
	Header Header

	name   string
	file   *os.File // when Open opened it
	limits Limits
	// size is the compressed file's size, -1 when unknown.
	size int64

	cr    *countingReader // the compressed file
	zr    *zstd.Decoder
	in    *bufio.Reader // the decompressed stream
	off   int64         // bytes of it consumed: where the next record starts
	chunk []byte        // the current record's JSON
	arena []byte        // the current record's protobuf objects,
	ends  []int         // where each ends in arena

	// records is an in-memory recording's (Recording.Reader), in place of
	// a file, and cutShort where its file was cut short.
	records  []Record
	cutShort *Stop

	keep     bool  // records keep their objects' bytes (Read, Decode)
	n        int   // records read, handed out or left out
	handed   int   // records handed out
	last     int64 // the last one's T
	streams  map[string]*stream
	names    interner
	stop     *Stop
	unstored Unstored
	err      error // once set, every Next returns it
	closed   bool
}

// Open opens the recording at path and reads its header. Close it.
func Open(path string, l Limits) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the recording %s: %v", path, unwrapPath(err))
	}
	r, err := NewReader(f, path, l)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// NewReader reads a recording's header from in; name is how errors call
// it. Close the Reader when done (it does not close in).
func NewReader(in io.Reader, name string, l Limits) (*Reader, error) {
	r := &Reader{name: name, limits: l, size: sizeOf(in)}
	r.cr = &countingReader{r: bufio.NewReaderSize(in, 64<<10)}
	if magic, _ := r.cr.r.Peek(2); bytes.Equal(magic, gzipMagic) {
		return nil, gzipped(r.cr, name)
	}
	zr, err := zstd.NewReader(r.cr, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, r.fail(0, 0, "cannot be read: "+err.Error(), fixDamaged)
	}
	r.zr = zr
	r.in = bufio.NewReaderSize(zr, 256<<10)
	if err := r.readHeader(); err != nil {
		zr.Close()
		r.err = err
		return nil, err
	}
	return r, nil
}

// sizeOf is in's size when it knows it, else -1.
func sizeOf(in io.Reader) int64 {
	switch s := in.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if st, err := s.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	case interface{ Size() int64 }:
		return s.Size()
	}
	return -1
}

// Close releases the decompressor and closes the file Open opened. After
// it, Next fails.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.err == nil {
		r.err = fmt.Errorf("the recording %s was closed", r.name)
	}
	if r.zr != nil {
		r.zr.Close()
	}
	if r.file != nil {
		return r.file.Close()
	}
	return nil
}

// Name is how the reader's errors call the file.
func (r *Reader) Name() string { return r.name }

// Stop says where a file cut short ends, once Next has returned io.EOF;
// nil when it ended cleanly.
func (r *Reader) Stop() *Stop { return r.stop }

// Unstored counts the objects left out so far because the recorder could
// not store them.
func (r *Reader) Unstored() Unstored { return r.unstored }

// Kind is how the informer's objects are handed out: as the API's Go
// types of gvk when typed, else as unstructured objects. It is settled by
// the first object read for the informer; asking before that settles it
// as unstructured. ok is false for an informer the header does not list.
func (r *Reader) Kind(informer string) (gvk schema.GroupVersionKind, typed, ok bool) {
	st := r.streams[informer]
	if st == nil {
		return gvk, false, false
	}
	st.settled = true
	if st.typed {
		return st.gvk, true, true
	}
	return st.gvk, false, true
}

// KindSettled reports whether the informer's first object has been read,
// which settles Kind.
func (r *Reader) KindSettled(informer string) bool {
	st := r.streams[informer]
	return st == nil || st.settled
}

// Reader returns a Reader over rec's records, as if read from its file:
// each is checked and its objects decoded the same way.
func (rec *Recording) Reader() (*Reader, error) {
	r := &Reader{name: rec.Path, Header: rec.Header, size: -1, records: rec.Records, cutShort: rec.Stop, unstored: rec.Unstored}
	if err := r.checkHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Reader) fail(record int, stream int64, problem, fix string) *FileError {
	return &FileError{Path: r.name, Offset: r.offset(), Record: record, Stream: stream, Problem: problem, Fix: fix}
}

func (r *Reader) offset() int64 {
	if r.cr == nil {
		return 0
	}
	return r.cr.n
}

func (r *Reader) readHeader() error {
	first, err := r.headerLine()
	switch {
	case errors.Is(err, zstd.ErrMagicMismatch):
		return &FileError{Path: r.name, Problem: "is not an informtop recording (it is not zstd-compressed)", Fix: fixForeign}
	case errors.Is(err, errHeaderTooLong):
		return r.fail(0, 0, fmt.Sprintf("has a first line longer than %s, and a recording's header is far shorter", humanize.Bytes(MaxHeader)), fixDamaged)
	case (errors.Is(err, io.EOF) || isTruncation(err)) && len(first) == 0:
		return r.fail(0, 0, "is empty or ends before its header: it is not a recording, or one that was cut short before it began", fixForeign)
	case err != nil && !isTruncation(err) && !errors.Is(err, io.EOF):
		return r.fail(0, 0, "is corrupt: "+err.Error(), fixDamaged)
	}
	if len(first) == 0 || first[len(first)-1] != '\n' {
		if looksLikeHeader(first) {
			return r.fail(0, 0, "ends before its header is complete: nothing to replay", "record again")
		}
		return r.fail(0, 0, "is not an informtop recording (no header line)", fixForeign)
	}
	r.off = int64(len(first))
	var probe headerProbe
	if json.Unmarshal(first, &probe) != nil || probe.Format != FormatName {
		return &FileError{Path: r.name, Problem: "is not an informtop recording (its first line is not a recording header)", Fix: fixForeign}
	}
	if !readable(probe.Version) {
		return &VersionError{Path: r.name, Version: probe.Version, Informtop: probe.Informtop}
	}
	// Count before decoding: a header of tens of thousands of informers
	// must cost nothing but its line.
	var counted struct {
		Informers []struct {
			Listeners []json.RawMessage `json:"listeners"`
		} `json:"informers"`
	}
	if err := json.Unmarshal(first, &counted); err != nil {
		return r.fail(0, 0, "has a header this informtop cannot read: "+err.Error(), fixDamaged)
	}
	if n := len(counted.Informers); n > MaxInformers {
		return r.fail(0, 0, fmt.Sprintf("has a header of %s, more than the %d a recording may have", humanize.Plural(n, "informer"), MaxInformers), fixDamaged)
	}
	listeners := 0
	for _, inf := range counted.Informers {
		listeners += len(inf.Listeners)
	}
	if listeners > MaxListeners {
		return r.fail(0, 0, fmt.Sprintf("has a header of %s, more than the %d a recording may have", humanize.Plural(listeners, "listener"), MaxListeners), fixDamaged)
	}
	// Strictly: without a checksum, a field whose name a damaged byte
	// changed shows only as a field headers do not have. (A new field
	// comes with a new format version.)
	dec := json.NewDecoder(bytes.NewReader(first))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r.Header); err != nil {
		return r.fail(0, 0, "has a header this informtop cannot read: "+err.Error(), fixDamaged)
	}
	if len(bytes.TrimSpace(first[dec.InputOffset():])) > 0 {
		return r.fail(0, 0, "has a header line with more than its JSON on it", fixDamaged)
	}
	return r.checkHeader()
}

var errHeaderTooLong = errors.New("header line too long")

// headerLine reads the first line, newline included, or at most
// MaxHeader bytes of it.
func (r *Reader) headerLine() ([]byte, error) {
	var line []byte
	for {
		b, err := r.in.ReadSlice('\n')
		line = append(line, b...)
		if len(line) > MaxHeader {
			return nil, errHeaderTooLong
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// checkHeader refuses a header informtop would not write: it names what a
// replay shows and builds.
func (r *Reader) checkHeader() error {
	h := &r.Header
	if len(h.Informers) > MaxInformers {
		return r.fail(0, 0, fmt.Sprintf("has a header of %s, more than the %d a recording may have", humanize.Plural(len(h.Informers), "informer"), MaxInformers), fixDamaged)
	}
	bad := func(what string) error {
		return r.fail(0, 0, fmt.Sprintf("has a header whose %s holds control characters", what), fixDamaged)
	}
	for what, s := range map[string]string{"source": h.Source, "informtop version": h.Informtop} {
		if !printableString(s) {
			return bad(what)
		}
	}
	r.streams = make(map[string]*stream, len(h.Informers))
	listeners := 0
	for _, inf := range h.Informers {
		if inf.Name == "" {
			return r.fail(0, 0, "has a header naming an informer without a name", fixDamaged)
		}
		for _, s := range append([]string{inf.Name, inf.Resource, inf.Queue, inf.Namespace, inf.Labels, inf.Fields}, inf.Transforms...) {
			if !printableString(s) {
				return bad(fmt.Sprintf("informer %q", inf.Name))
			}
		}
		if r.streams[inf.Name] != nil {
			return r.fail(0, 0, fmt.Sprintf("has a header naming informer %q twice", inf.Name), fixDamaged)
		}
		named := map[string]bool{}
		for _, l := range inf.Listeners {
			if l.Name == "" || !printableString(l.Name) || named[l.Name] {
				return r.fail(0, 0, fmt.Sprintf("has a header whose informer %q has a listener named %q, empty or twice", inf.Name, l.Name), fixDamaged)
			}
			named[l.Name] = true
		}
		listeners += len(inf.Listeners)
		r.streams[inf.Name] = newStream(inf)
	}
	if listeners > MaxListeners {
		return r.fail(0, 0, fmt.Sprintf("has a header of %s, more than the %d a recording may have", humanize.Plural(listeners, "listener"), MaxListeners), fixDamaged)
	}
	return nil
}

// Next returns the next record, checked, its objects decoded (see
// Record.Decoded). It returns io.EOF at the end of the file, whether it
// ended cleanly or was cut short (see Stop), and a *FileError when the
// file is corrupt or goes past a bound; after either, every call returns
// the same.
func (r *Reader) Next() (Record, error) {
	for r.err == nil {
		var rec Record
		var err error
		if r.cr == nil {
			rec, err = r.nextInMemory()
		} else {
			rec, err = r.nextInFile()
		}
		if err != nil {
			r.err = err
			break
		}
		r.n++
		if err := r.check(&rec); err != nil {
			r.err = err
			break
		}
		if rec.Kind == KindEvent && rec.objs == nil {
			continue // its object was never stored: counted in Unstored
		}
		r.last = rec.T
		r.handed++
		if r.keep {
			// A whole recording keeps its objects' bytes instead: they
			// take a fraction of the memory (and of the collector's time).
			rec.objs = nil
		} else {
			rec.Proto, rec.Object, rec.Items = nil, nil, nil
		}
		return rec, nil
	}
	return Record{}, r.err
}

func (r *Reader) nextInMemory() (Record, error) {
	if r.n >= len(r.records) {
		r.stop = r.cutShort
		return Record{}, io.EOF
	}
	rec := r.records[r.n]
	rec.Offset, rec.Size = 0, 0
	return rec, nil
}

func (r *Reader) nextInFile() (Record, error) {
	start := r.off
	record := r.n + 1
	rec, err := r.frame()
	switch {
	case err == nil:
		rec.Offset, rec.Size = start, r.off-start
		return rec, nil
	case errors.Is(err, io.EOF):
		return rec, io.EOF
	case isTruncation(err):
		// A cut-short file ends there; a damaged one goes on, and the
		// decompressor stopped early only because it could not follow.
		if _, perr := r.cr.r.Peek(1); perr == nil {
			return rec, r.fail(record, start, "is corrupt: its compressed stream breaks off before the file ends", fixDamaged)
		}
		r.stop = &Stop{Offset: r.cr.n, Records: r.handed, At: time.Duration(r.last)}
		return rec, io.EOF
	}
	var fe *FileError
	if errors.As(err, &fe) {
		fe.Path, fe.Offset, fe.Record, fe.Stream = r.name, r.offset(), record, start
		return rec, fe
	}
	return rec, r.fail(record, start, "is corrupt: "+err.Error(), fixDamaged)
}

// frame reads one record's frame: its JSON, then its protobuf objects.
// io.EOF at a clean end, io.ErrUnexpectedEOF when the file ends inside it.
func (r *Reader) frame() (Record, error) {
	var rec Record
	r.chunk = r.chunk[:0]
	b, err := r.readChunk(&r.chunk, true)
	if err != nil {
		return rec, err
	}
	if err := parseRecord(b, &rec, &r.names); err != nil {
		return rec, err
	}
	if rec.ProtoCount < 0 || rec.ProtoCount > maxObjects {
		return rec, fmt.Errorf("a record says it holds %d objects", rec.ProtoCount)
	}
	if rec.ProtoCount == 0 {
		return rec, nil
	}
	// Every object's bytes go into one buffer, reused from record to
	// record unless the records keep them: decoding copies what it keeps.
	r.arena, r.ends = r.arena[:0], r.ends[:0]
	for range rec.ProtoCount {
		if _, err := r.readChunk(&r.arena, false); err != nil {
			return rec, err
		}
		r.ends = append(r.ends, len(r.arena))
	}
	if r.keep {
		r.arena = bytes.Clone(r.arena)
	}
	rec.Proto = make([][]byte, len(r.ends))
	from := 0
	for i, end := range r.ends {
		rec.Proto[i] = r.arena[from:end:end]
		from = end
	}
	if r.keep {
		r.arena = nil
	}
	return rec, nil
}

// maxObjects bounds the objects a record may say it holds, before any is
// read: each takes at least its length's byte.
const maxObjects = DefaultMaxRecord

// readChunk reads a length and that many bytes, appended to *buf, and
// returns *buf grown by them. first says the chunk starts a record,
// where the file may end cleanly.
func (r *Reader) readChunk(buf *[]byte, first bool) ([]byte, error) {
	n, err := binary.ReadUvarint(r.in)
	if err != nil {
		if errors.Is(err, io.EOF) && !first {
			err = io.ErrUnexpectedEOF
		}
		if !errors.Is(err, io.EOF) && !isTruncation(err) {
			err = fmt.Errorf("a length is malformed (%v)", err)
		}
		return nil, err
	}
	r.off += int64(uvarintLen(n))
	if limit := r.limits.maxRecord(); n > uint64(limit) {
		return nil, &FileError{Problem: fmt.Sprintf("is corrupt or hostile: a record says it takes %s, more than the %s a record may take", humanize.Bytes(n), humanize.Bytes(limit)),
			Fix: "if informtop recorded a list that large, replay it with a higher --max-record; else the file was damaged or not written by informtop: replay an intact copy, or record again"}
	}
	if err := r.within(int64(n)); err != nil {
		return nil, err
	}
	b := *buf
	start := len(b)
	// Grow with what arrives rather than by n at once: a length that
	// lies costs no more than the bytes really there.
	for want := start + int(n); len(b) < want; {
		if len(b) == cap(b) {
			// A record's JSON is checked field by field as it arrives,
			// each time the buffer is full (so in linear time): a field
			// past its bound is refused before the rest is read.
			if first && len(b) > start {
				if err := eachField(b[start:], checkField); err != nil {
					*buf = b
					return nil, err
				}
			}
			b = slices.Grow(b, min(want-len(b), max(len(b), 64<<10)))
		}
		m, err := r.in.Read(b[len(b):min(want, cap(b))])
		b = b[:len(b)+m]
		r.off += int64(m)
		if err != nil {
			*buf = b
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if err := r.within(0); err != nil {
			return nil, err
		}
	}
	*buf = b
	return b[start:], nil
}

// within refuses reading more bytes when the decompressed stream would
// outgrow what its compressed size allows.
func (r *Reader) within(more int64) error {
	if r.off+more <= streamAllowance {
		return nil
	}
	budget := streamBudget(max(r.size, r.cr.n))
	if r.off+more <= budget {
		return nil
	}
	return &FileError{Problem: fmt.Sprintf("is corrupt or hostile: its decompressed stream would take more than %s, over %d times its compressed size, and recordings compress far less", humanize.Bytes(budget), maxRatio), Fix: fixDamaged}
}

func uvarintLen(n uint64) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// headerProbe is what every version's header line starts with.
type headerProbe struct {
	Format    string `json:"format"`
	Version   int    `json:"version"`
	Informtop string `json:"informtop"`
}

var gzipMagic = []byte{0x1f, 0x8b}

// gzipped says why a gzip file is refused: format version 1 recordings
// were gzip'd JSON lines, and are named as such.
func gzipped(cr *countingReader, name string) error {
	foreign := &FileError{Path: name, Problem: "is not an informtop recording (it is gzip-compressed, and recordings are zstd-compressed)", Fix: fixForeign}
	zr, err := gzip.NewReader(cr)
	if err != nil {
		return foreign
	}
	first, _ := bufio.NewReader(io.LimitReader(zr, 64<<10)).ReadBytes('\n')
	var probe headerProbe
	if json.Unmarshal(first, &probe) != nil || probe.Format != FormatName || readable(probe.Version) {
		return foreign
	}
	return &VersionError{Path: name, Version: probe.Version, Informtop: probe.Informtop}
}

func readable(v int) bool {
	for _, r := range Reads {
		if r == v {
			return true
		}
	}
	return false
}

func looksLikeHeader(b []byte) bool {
	return bytes.HasPrefix(b, []byte(`{"format":"`+FormatName)) || (len(b) < 30 && bytes.HasPrefix([]byte(`{"format":"`+FormatName), b))
}

// isTruncation: the compressed stream ends early, as a cut-short file does.
func isTruncation(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }

// printableString: s holds no control characters, so it can be shown.
func printableString(s string) bool {
	for _, c := range s {
		if c < 0x20 || (c >= 0x7f && c < 0xa0) {
			return false
		}
	}
	return true
}

// printable is s as it may be shown: quoted when it holds control
// characters.
func printable(s string) string {
	if printableString(s) {
		return s
	}
	return strconv.Quote(s)
}

// countingReader counts the bytes the decompressor consumed; it is a
// ByteReader so that the decompressor reads no further than it needs.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}
