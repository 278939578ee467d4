package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// listing is a source whose pods informer is still listing and never
// syncs: WaitSynced returns only when its context ends.
type listing struct{ *sourcetest.Fake }

func (listing) WaitSynced(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

func newListing() listing {
	snap := source.Informer{Name: "pods", Started: true}
	snap.Reflector.ListInProgress = true
	return listing{sourcetest.New(sourcetest.Config{Kind: "kube", Title: "test",
		Frames:  [][]source.Informer{{snap, {Name: "configmaps", Started: true, Synced: true}}},
		Reasons: source.Reasons{"pods": "still listing: 3 pages, 1,500 items so far"}})}
}

// onWrite is a terminal stand-in: it records what is written and calls
// written once, after the first write.
type onWrite struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	once    sync.Once
	written func()
}

func (w *onWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	n, err := w.buf.Write(p)
	w.mu.Unlock()
	w.once.Do(w.written)
	return n, err
}

func (w *onWrite) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// --once on a terminal says, once the wait is long, what it waits for,
// and erases that line before anything else is written; the wait here
// ends (as an interrupt) only once that line was written.
func TestOnceProgressOnATerminal(t *testing.T) {
	o := newOptions()
	o.once, o.timeout = true, time.Minute
	o.progress.after = 0
	o.progress.isTerminal = func(io.Writer) bool { return true }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &onWrite{written: cancel}
	var stdout bytes.Buffer
	if code := runOnce(ctx, newListing(), o, &stdout, stderr); code != 1 {
		t.Fatalf("exit code %d, want 1 (interrupted before the sync)", code)
	}
	got := stderr.String()
	line := clearLine + "informtop: waiting 0s for the sync: 1 of 2 informers synced; pods: still listing: 3 pages, 1,500 items so far"
	if !strings.HasPrefix(got, line+clearLine+"informtop: interrupted") {
		t.Fatalf("stderr %q; want the progress line, erased, then the interruption", got)
	}
	if !strings.Contains(stdout.String(), "synced: false") {
		t.Fatalf("no report on stdout: %q", stdout.String())
	}
}

// When stderr is not a terminal (a pipe, a CI log) --once writes only the
// report and its closing sentences, however long it waits.
func TestOnceNoProgressWithoutATerminal(t *testing.T) {
	o := newOptions()
	o.once, o.timeout = true, 50*time.Millisecond
	o.progress.after = 0
	o.progress.isTerminal = func(io.Writer) bool { return false }
	var stdout, stderr bytes.Buffer
	if code := runOnce(context.Background(), newListing(), o, &stdout, &stderr); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if strings.Contains(stderr.String(), "waiting") || strings.Contains(stderr.String(), "\r") {
		t.Fatalf("progress written to a non-terminal: %q", stderr.String())
	}
	if !strings.HasPrefix(stderr.String(), "informtop: not every informer and handler synced within 50ms") {
		t.Fatalf("stderr %q", stderr.String())
	}
}

// The line never wraps, so a carriage return repaints it whole.
func TestProgressLineClipsToTheTerminal(t *testing.T) {
	long := strings.Repeat("x", 200)
	if got := clip(long, 80); len([]rune(got)) != 79 || !strings.HasSuffix(got, "…") {
		t.Fatalf("clip to 80 columns: %d runes %q", len([]rune(got)), got)
	}
	if got := clip("short", 80); got != "short" {
		t.Fatalf("clip(short) = %q", got)
	}
	if got := clip(long, 0); got != long {
		t.Fatalf("an unknown width clipped the line to %d runes", len(got))
	}
}

// The default waits about 1.5 s before the first line, and the real
// terminal check refuses a buffer.
func TestProgressDefaults(t *testing.T) {
	if defaultProgress.after != 1500*time.Millisecond || defaultProgress.isTerminal(&bytes.Buffer{}) {
		t.Fatalf("defaults %+v", defaultProgress)
	}
}
