// Package hostile crafts recording files meant to take the machine that
// replays them: a few kilobytes on disk that decompress to gigabytes, or
// that ask for thousands of informers. The tests of what reads
// recordings (package recording, informtop replay) use them.
package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Frame writes a zstd frame by hand, block by block, so that a file can
// claim any size: an RLE block is 4 bytes for up to 128 KiB.
type Frame struct {
	b bytes.Buffer
}

// maxBlock is the largest block the frame's window (128 KiB) allows.
const maxBlock = 128 << 10

// NewFrame starts a frame: its magic, no content size, no checksum, a
// window of 128 KiB.
func NewFrame() *Frame {
	f := &Frame{}
	f.b.Write([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3})
	return f
}

func (f *Frame) block(typ, size int, last bool) {
	h := typ<<1 | size<<3
	if last {
		h |= 1
	}
	f.b.Write([]byte{byte(h), byte(h >> 8), byte(h >> 16)})
}

// Raw adds p as it is.
func (f *Frame) Raw(p []byte) *Frame {
	for len(p) > 0 {
		n := min(len(p), maxBlock)
		f.block(0, n, false)
		f.b.Write(p[:n])
		p = p[n:]
	}
	return f
}

// Repeat adds n bytes of c.
func (f *Frame) Repeat(c byte, n int64) *Frame {
	for n > 0 {
		m := min(n, maxBlock)
		f.block(1, int(m), false)
		f.b.WriteByte(c)
		n -= m
	}
	return f
}

// Bytes ends the frame with an empty last block and returns it.
func (f *Frame) Bytes() []byte {
	f.block(0, 0, true)
	return f.b.Bytes()
}

// Header is the start of a recording's header line, as informtop writes
// it, up to the informers.
const Header = `{"format":"informtop-recording","version":2,"informtop":"hostile","source":"hostile"`

// EndlessHeader is a recording whose header line goes on for size bytes
// without a newline: 90 KB on disk for 3 GB.
func EndlessHeader(size int64) []byte {
	return NewFrame().Raw([]byte(Header+`,"informers":[{"name":"`)).Repeat('a', size).Bytes()
}

// HugeRecords is a recording of one informer followed by n records that
// each say they take size bytes and do: 110 KB on disk for 4 of 900 MB.
func HugeRecords(n int, size int64) []byte {
	f := NewFrame().Raw([]byte(Header + `,"informers":[{"name":"pods","resource":"pods","queue":"RealFIFO"}]}` + "\n"))
	for range n {
		f.Raw(binary.AppendUvarint(nil, uint64(size))).Repeat(0, size)
	}
	return f.Bytes()
}

// ManyInformers is a recording whose header lists n informers, each
// with listeners listeners, compressed as informtop compresses: 640 KB
// of header, 18 KB on disk, for 20,000 informers without listeners.
func ManyInformers(n, listeners int) []byte {
	var line bytes.Buffer
	line.WriteString(Header + `,"informers":[`)
	for i := range n {
		if i > 0 {
			line.WriteByte(',')
		}
		fmt.Fprintf(&line, `{"name":"%d","queue":"RealFIFO"`, i)
		if listeners > 0 {
			line.WriteString(`,"listeners":[`)
			for j := range listeners {
				if j > 0 {
					line.WriteByte(',')
				}
				fmt.Fprintf(&line, `{"name":"%d"}`, j)
			}
			line.WriteByte(']')
		}
		line.WriteByte('}')
	}
	line.WriteString("]}\n")
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		panic(err) // only bad options fail
	}
	if _, err := zw.Write(line.Bytes()); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// HugeField is a recording of one informer (pods) and one record, whose
// JSON is record with its @ replaced by size digits: a field that takes
// far more than any field should. It compresses about 970 times, just
// under what a reader allows (RLE alone would be refused for its ratio):
// 270 KB on disk for 250 MiB.
func HugeField(record string, size int64) []byte {
	before, after, _ := strings.Cut(record, "@")
	f := NewFrame().Raw([]byte(Header + `,"informers":[{"name":"pods","resource":"pods","queue":"RealFIFO"}]}` + "\n"))
	f.Raw(binary.AppendUvarint(nil, uint64(int64(len(before)+len(after))+size))).Raw([]byte(before))
	stored := bytes.Repeat([]byte("2"), 128)
	for size > 0 {
		n := min(size, maxBlock)
		f.Repeat('1', n)
		size -= n
		if size > 0 {
			n = min(size, int64(len(stored)))
			f.Raw(stored[:n])
			size -= n
		}
	}
	return f.Raw([]byte(after)).Bytes()
}
