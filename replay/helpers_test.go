package replay

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo"
	"github.com/informtop/informtop/recording"
	"github.com/informtop/informtop/source/local"
)

const testTimeout = 60 * time.Second

// recordDemo records a seeded steady demo until it has handed its
// listeners at least calls callbacks, and returns the file and what each
// live listener was called with, in order.
func recordDemo(t *testing.T, calls uint64) (string, map[string][]string) {
	t.Helper()
	d, err := demo.New(demo.Config{Scenario: "steady", Seed: 7, TimeScale: 0.01, Rate: 300, Objects: 40})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.rec.zst")
	w, err := recording.Start(path, d.Source, recording.Header{Source: "demo · steady (seed 7)", Informtop: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, inf := range d.Informers() {
		for _, l := range d.Listeners(inf.Name()) {
			l.KeepSequence(true)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { d.Run(ctx) })
	waitfor.Within(t, testTimeout, "the demo's callbacks", func() (bool, string) {
		n := callsIn(d.Source)
		return n >= calls, fmt.Sprintf("the demo made %d callbacks, want %d", n, calls)
	})
	cancel()
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Dropped != 0 {
		t.Fatalf("the recorder dropped %d records", st.Dropped)
	}
	live := map[string][]string{}
	for _, inf := range d.Informers() {
		for _, l := range d.Listeners(inf.Name()) {
			for _, c := range l.Record().Calls {
				live[inf.Name()+"/"+l.Name()] = append(live[inf.Name()+"/"+l.Name()], callLine(c))
			}
			live[inf.Name()+"/"+l.Name()] = initialAddsSorted(live[inf.Name()+"/"+l.Name()])
		}
	}
	return path, live
}

func callLine(c local.Call) string {
	return fmt.Sprintf("%s %s@%s initial=%t tomb=%t", c.Callback, c.Key, c.ResourceVersion, c.InInitialList, c.Tombstone)
}

func callsIn(s *local.Source) uint64 {
	var n uint64
	for _, snap := range s.States() {
		for _, l := range snap.Listeners {
			n += l.Delivered.Total()
		}
	}
	return n
}

// outcome is what a settled replay shows: its report as JSON, every
// informer's store (key@resourceVersion) and every listener's callbacks
// grouped by key.
type outcome struct {
	report string
	stores map[string][]string
	perKey map[string]map[string][]string // informer/listener → key → callbacks
	calls  map[string][]string            // informer/listener → callbacks in order
	errors []string                       // errors in the replay's event log
}

// replayOnce replays path to its end and returns what it shows.
func replayOnce(t *testing.T, path string, o Options) outcome {
	t.Helper()
	s := openReplay(t, path, o)
	for _, inf := range s.Informers() {
		for _, l := range s.Listeners(inf.Name()) {
			l.KeepSequence(true)
		}
	}
	stop := runSettled(t, s)
	defer stop()
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, s.Report()); err != nil {
		t.Fatal(err)
	}
	var logged []string
	for _, ev := range s.Pull(0, 0).Events {
		if ev.Type == source.EventError || ev.Type == source.EventWatchError {
			logged = append(logged, ev.Informer+": "+ev.Detail)
		}
	}
	out := outcome{errors: logged, report: buf.String(), stores: map[string][]string{}, perKey: map[string]map[string][]string{}, calls: map[string][]string{}}
	for _, inf := range s.Informers() {
		out.stores[inf.Name()] = storeOf(inf)
		for _, l := range s.Listeners(inf.Name()) {
			id := inf.Name() + "/" + l.Name()
			out.perKey[id] = map[string][]string{}
			for _, c := range l.Record().Calls {
				line := callLine(c)
				out.calls[id] = append(out.calls[id], line)
				out.perKey[id][c.Key] = append(out.perKey[id][c.Key], line)
			}
			out.calls[id] = initialAddsSorted(out.calls[id])
		}
	}
	return out
}

// initialAddsSorted sorts each run of initial-list OnAdds: a list that
// came as a WatchList stream is handed to the queue from client-go's
// temporary store, a map, so its order is not the server's and differs
// from run to run; what follows the list keeps its order.
func initialAddsSorted(calls []string) []string {
	initial := func(c string) bool { return strings.HasPrefix(c, "OnAdd ") && strings.Contains(c, " initial=true ") }
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && initial(calls[j]) {
			j++
		}
		slices.Sort(calls[i:j])
		i = max(j, i+1)
	}
	return calls
}

func storeOf(inf *local.Informer) []string {
	var out []string
	for _, obj := range inf.Objects() {
		k, rv := local.KeyAndVersion(obj)
		out = append(out, k+"@"+rv)
	}
	sort.Strings(out)
	return out
}

// diff names the first difference between two string lists.
func diff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %q vs %q", i, a[i], b[i])
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
	}
	return ""
}

// run runs s and returns a context for waiting on it, bounded by
// testTimeout; stop ends the wait and the source and waits for it.
func run(s *Source) (wait context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(ctx) })
	wctx, wcancel := context.WithTimeout(ctx, testTimeout)
	return wctx, func() {
		wcancel()
		cancel()
		wg.Wait()
	}
}

// readerOf reads rec as if from its file.
func readerOf(t *testing.T, rec *recording.Recording) *recording.Reader {
	t.Helper()
	r, err := rec.Reader()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// openReplay reads the recording at path into a replay source.
func openReplay(t *testing.T, path string, o Options) *Source {
	t.Helper()
	r, err := recording.Open(path, recording.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(r, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runSettled runs s until it has synced and replayed everything; stop ends it.
func runSettled(t *testing.T, s *Source) (stop func()) {
	t.Helper()
	wctx, stop := run(s)
	if err := s.WaitSynced(wctx); err != nil {
		stop()
		t.Fatal(err)
	}
	if err := s.Settled(wctx); err != nil {
		stop()
		t.Fatal(err)
	}
	return stop
}
