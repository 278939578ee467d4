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
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"k8s.io/client-go/kubernetes/scheme"
)

// Recording is a file read back: its header and its complete records.
type Recording struct {
	Path    string
	Header  Header
	Records []Record
	// Stop is set when the file ends in the middle of a record (a
	// recording cut short): Records holds what was complete.
	Stop *Stop
	// Size is the file's size in bytes.
	Size int64
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
	return fmt.Sprintf("%s is cut short at byte %d: replaying its %d complete records, up to %s into the recording", path, s.Offset, s.Records, s.At.Round(time.Millisecond))
}

// FileError is a file that cannot be replayed: not a recording, or
// corrupt. Offset is the file's byte where that became clear.
type FileError struct {
	Path    string
	Offset  int64
	Problem string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s %s (at byte %d)", e.Path, e.Problem, e.Offset)
}

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
		by = " (written by informtop " + e.Informtop + ")"
	}
	return fmt.Sprintf("%s is a version %d recording%s; this informtop reads version %s only: replay it with an informtop that reads version %d",
		e.Path, e.Version, by, strings.Join(reads, ", "), e.Version)
}

// Read reads the recording at path. A file cut short is no error: see
// Recording.Stop. Errors are sentences naming the file.
func Read(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the recording %s: %v", path, unwrapPath(err))
	}
	defer f.Close()
	rec, err := Decode(f, path)
	if rec != nil {
		if st, serr := f.Stat(); serr == nil {
			rec.Size = st.Size()
		}
	}
	return rec, err
}

// Decode reads a recording from r; name is how errors call it.
func Decode(r io.Reader, name string) (*Recording, error) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 64<<10)}
	if magic, _ := cr.r.Peek(2); bytes.Equal(magic, gzipMagic) {
		return nil, gzipped(cr, name)
	}
	// The writer's window is a few MB; a header asking for more is a
	// corrupt or hostile file, not a reason to reserve gigabytes.
	zr, err := zstd.NewReader(cr, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
	if err != nil {
		return nil, &FileError{name, 0, "cannot be read: " + err.Error()}
	}
	defer zr.Close()
	lines := bufio.NewReaderSize(zr, 256<<10)
	out := &Recording{Path: name}

	first, err := lines.ReadBytes('\n')
	switch {
	case errors.Is(err, zstd.ErrMagicMismatch):
		return nil, &FileError{name, 0, "is not an informtop recording (it is not zstd-compressed)"}
	case errors.Is(err, io.EOF) && len(first) == 0, isTruncation(err) && len(first) == 0:
		return nil, &FileError{name, cr.n, "is empty or ends before its header: it is not a recording, or one that was cut short before it began"}
	case err != nil && !isTruncation(err) && !errors.Is(err, io.EOF):
		return nil, &FileError{name, cr.n, "is corrupt: " + err.Error()}
	}
	if len(first) == 0 || first[len(first)-1] != '\n' {
		if looksLikeHeader(first) {
			return nil, &FileError{name, cr.n, "ends before its header is complete: nothing to replay"}
		}
		return nil, &FileError{name, cr.n, "is not an informtop recording (no header line)"}
	}
	var probe headerProbe
	if json.Unmarshal(first, &probe) != nil || probe.Format != FormatName {
		return nil, &FileError{name, 0, "is not an informtop recording (its first line is not a recording header)"}
	}
	if !readable(probe.Version) {
		return nil, &VersionError{Path: name, Version: probe.Version, Informtop: probe.Informtop}
	}
	if err := json.Unmarshal(first, &out.Header); err != nil {
		return nil, &FileError{name, cr.n, "has a header this informtop cannot read: " + err.Error()}
	}
	known := map[string]bool{}
	for _, inf := range out.Header.Informers {
		known[inf.Name] = true
	}
	for {
		rec, err := readRecord(lines)
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return out, nil
		case isTruncation(err):
			out.Stop = &Stop{Offset: cr.n, Records: len(out.Records)}
			if n := len(out.Records); n > 0 {
				out.Stop.At = out.Records[n-1].At()
			}
			return out, nil
		default:
			return nil, &FileError{name, cr.n, fmt.Sprintf("is corrupt: record %d %v", len(out.Records)+1, err)}
		}
		if problem := check(rec, known); problem != "" {
			return nil, &FileError{name, cr.n, fmt.Sprintf("is corrupt: record %d %s", len(out.Records)+1, problem)}
		}
		out.Records = append(out.Records, rec)
	}
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
	foreign := &FileError{name, 0, "is not an informtop recording (it is gzip-compressed, and recordings are zstd-compressed)"}
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

// maxChunk bounds one record's JSON or one object, so that a corrupt
// length is refused instead of read; an unpaged list of a big cluster,
// stored as JSON, can take hundreds of MB.
const maxChunk = 1 << 30

// readRecord reads one frame: io.EOF at a clean end, io.ErrUnexpectedEOF
// when the file ends inside it, another error when it is corrupt.
func readRecord(r *bufio.Reader) (Record, error) {
	var rec Record
	b, err := readChunk(r, true)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("is not valid (%v)", err)
	}
	if rec.ProtoCount < 0 || rec.ProtoCount > maxChunk {
		return rec, fmt.Errorf("says it holds %d objects", rec.ProtoCount)
	}
	rec.Proto = make([][]byte, 0, min(rec.ProtoCount, 1024))
	for range rec.ProtoCount {
		b, err := readChunk(r, false)
		if err != nil {
			return rec, err
		}
		rec.Proto = append(rec.Proto, b)
	}
	return rec, nil
}

// readChunk reads a length and that many bytes. first says the chunk
// starts a record, where the file may end cleanly.
func readChunk(r *bufio.Reader, first bool) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		if errors.Is(err, io.EOF) && !first {
			err = io.ErrUnexpectedEOF
		}
		if !errors.Is(err, io.EOF) && !isTruncation(err) {
			err = fmt.Errorf("has a malformed length (%v)", err)
		}
		return nil, err
	}
	if n > maxChunk {
		return nil, fmt.Errorf("has a length of %d bytes", n)
	}
	// Read what is there rather than allocate n first: a corrupt n must
	// not cost its size in memory.
	b, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, err
	}
	if uint64(len(b)) < n {
		return nil, io.ErrUnexpectedEOF
	}
	return b, nil
}

// check says what is wrong with a record that decoded, "" if nothing.
func check(r Record, known map[string]bool) string {
	switch r.Kind {
	case KindList, KindWatch, KindEvent, KindClose, KindCall:
		if !known[r.Informer] {
			return fmt.Sprintf("names informer %q, which the header does not list", r.Informer)
		}
	case KindGap:
	default:
		return fmt.Sprintf("is of unknown kind %q", r.Kind)
	}
	if r.T < 0 {
		return "has a negative time"
	}
	switch {
	case r.ProtoKind == "" && r.ProtoCount > 0:
		return "has protobuf objects but names no kind"
	case r.ProtoKind != "" && r.Kind == KindEvent && r.ProtoCount != 1:
		return fmt.Sprintf("has %d objects for one event", r.ProtoCount)
	}
	if r.ProtoKind != "" {
		gvk, err := parseProtoKind(r.ProtoKind)
		if err != nil {
			return fmt.Sprintf("has objects of an unreadable kind: %v", err)
		}
		if !scheme.Scheme.Recognizes(gvk) {
			return fmt.Sprintf("has objects of kind %s, which this informtop cannot decode", r.ProtoKind)
		}
	}
	return ""
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
