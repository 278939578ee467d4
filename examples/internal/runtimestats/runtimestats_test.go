package runtimestats

import (
	"io"
	"os"
	"regexp"
	"testing"
)

// The line a benchmark reads allocates nothing, so two of them bracket
// only what the program allocated in between.
func TestLineAllocatesNothing(t *testing.T) {
	d := newDumper()
	d.seq = 7
	re := regexp.MustCompile(`^runtime-stats seq=7 heap-allocs-bytes=[1-9]\d* heap-allocs-objects=[1-9]\d* gc-cycles=\d+ heap-live-bytes=\d+ goroutines=[1-9]\d*\n$`)
	if got := string(d.line()); !re.MatchString(got) {
		t.Fatalf("line %q does not match %s", got, re)
	}
	// Written to a pipe, as stderr is when a benchmark reads it.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, r); close(drained) }()
	if n := testing.AllocsPerRun(100, func() { _, _ = w.Write(d.line()) }); n != 0 {
		t.Fatalf("a line allocates %v times, want 0", n)
	}
	_ = w.Close()
	<-drained
	_ = r.Close()
}
