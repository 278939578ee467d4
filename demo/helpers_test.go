package demo

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/local"
)

// testTimeout bounds every wait in these tests. Client-go's reflector backs
// off for up to a few seconds after a fault, so waits are generous; they
// end as soon as the condition holds.
const testTimeout = 30 * time.Second

// newDemo builds a demo for a test; the test fails if New does.
func newDemo(t *testing.T, cfg Config) *Demo {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return d
}

// start runs d until the test ends and checks that Run returns promptly.
func start(t *testing.T, d *Demo) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(testTimeout):
			t.Errorf("Run did not return within %v of its context ending", testTimeout)
		}
	})
}

// gate holds the script before chosen steps: a held step waits, after the
// script reached it, until the test releases it (or the demo stops).
type gate struct {
	mu      sync.Mutex
	reached map[string]chan struct{}
	release map[string]chan struct{}
}

// holdSteps installs a gate on d that holds each of the named steps.
func holdSteps(d *Demo, names ...string) *gate {
	g := &gate{reached: map[string]chan struct{}{}, release: map[string]chan struct{}{}}
	for _, n := range names {
		g.reached[n] = make(chan struct{})
		g.release[n] = make(chan struct{})
	}
	d.stepHook = func(ctx context.Context, name string) {
		g.mu.Lock()
		reached, release := g.reached[name], g.release[name]
		if reached != nil {
			select {
			case <-reached:
			default:
				close(reached)
			}
		}
		g.mu.Unlock()
		if release == nil {
			return
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
	return g
}

// await waits until the script is held at the named step.
func (g *gate) await(t *testing.T, name string) {
	t.Helper()
	select {
	case <-g.reached[name]:
	case <-time.After(testTimeout):
		t.Fatalf("the script did not reach step %q within %v", name, testTimeout)
	}
}

// let releases a held step (once; later visits of the step pass freely).
func (g *gate) let(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.release[name])
	g.release[name] = nil
}

// quiesce stops the workload, heals the server and every stall, and waits
// until every informer matches the server and every listener is idle.
func quiesce(t *testing.T, d *Demo) {
	t.Helper()
	d.work.hold()
	d.cluster.SetAvailable(true)
	for _, e := range d.Informers() {
		for _, l := range d.Listeners(e.Name()) {
			l.SetStalled(false)
		}
		local.EngineOf(e).SetPaused(false)
	}
	waitfor.Seen(t, "quiesce", func() (bool, string) {
		for _, e := range d.Informers() {
			if diff := d.storeDiff(e); diff != "" {
				return false, diff
			}
		}
		// Drained, not an empty queue: a pop empties the queue before its
		// items reach the indexer and the listeners. Read after the stores
		// and before the listeners, so what the stores hold was handed on.
		if !queuesDrained(d) {
			return false, "work queued or being processed"
		}
		for _, e := range d.Informers() {
			s := local.EngineOf(e).Snapshot()
			for _, ls := range s.Listeners {
				if ls.Pending != 0 || ls.InCallback != "" {
					return false, fmt.Sprintf("listener %s of %s: %d pending, in %q", ls.Name, e.Name(), ls.Pending, ls.InCallback)
				}
			}
		}
		return true, ""
	})
}

// assertConsistent checks, once quiet, that every informer's cache equals
// the server and that every listener's record agrees with the cache and
// with the processor's own counters.
func assertConsistent(t *testing.T, d *Demo) {
	t.Helper()
	for _, e := range d.Informers() {
		if diff := d.storeDiff(e); diff != "" {
			t.Errorf("store differs from the server: %s", diff)
		}
		want := storeVersions(e)
		stats := map[string]source.Listener{}
		for _, ls := range e.State().Listeners {
			stats[ls.Name] = ls
		}
		for _, l := range d.Listeners(e.Name()) {
			rec := l.Record()
			if len(rec.Anomalies) > 0 {
				t.Errorf("%s/%s anomalies: %s", e.Name(), l.Name(), strings.Join(rec.Anomalies, "; "))
			}
			if got := l.View(); !maps.Equal(got, want) {
				t.Errorf("%s/%s: the listener's view of %d objects differs from the store's %d: %s", e.Name(), l.Name(), len(got), len(want), mapDiff(got, want))
			}
			ls, ok := stats[l.Name()]
			if !ok {
				t.Errorf("%s/%s: missing from the snapshot", e.Name(), l.Name())
				continue
			}
			got := source.Delivered{Add: uint64(rec.Adds), Update: uint64(rec.Updates), Delete: uint64(rec.Deletes), Sync: uint64(rec.Syncs),
				Tombstones: uint64(rec.Tombstones)}
			if got != ls.Delivered {
				t.Errorf("%s/%s: the handler counted %+v, the processor %+v", e.Name(), l.Name(), got, ls.Delivered)
			}
		}
	}
}

// storeVersions maps an informer's cached keys to their resourceVersions.
func storeVersions(e *local.Informer) map[string]string {
	out := map[string]string{}
	for _, obj := range e.Objects() {
		k, rv := local.KeyAndVersion(obj)
		out[k] = rv
	}
	return out
}

func mapDiff(got, want map[string]string) string {
	var diffs []string
	for k, v := range got {
		if w, ok := want[k]; !ok {
			diffs = append(diffs, "extra "+k)
		} else if w != v {
			diffs = append(diffs, fmt.Sprintf("%s at %s, want %s", k, v, w))
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			diffs = append(diffs, "missing "+k)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("… %d in all", len(diffs)))
	}
	return strings.Join(diffs, ", ")
}

// snapshotOf returns the named informer's snapshot.
func snapshotOf(t *testing.T, d *Demo, informer string) source.Informer {
	t.Helper()
	e := d.Informer(informer)
	if e == nil {
		t.Fatalf("no informer %q", informer)
	}
	return e.State()
}

// listenerStats returns one listener's stats from a snapshot.
func listenerStats(t *testing.T, s source.Informer, name string) source.Listener {
	t.Helper()
	for _, ls := range s.Listeners {
		if ls.Name == name {
			return ls
		}
	}
	t.Fatalf("informer %s has no listener %q", s.Name, name)
	return source.Listener{}
}

// checkPausedBurst checks what a burst of n updates to the hot keys left in
// a paused informer's queue, from its snapshots before and after the
// burst: every update, nothing popped; DeltaFIFO one row per hot key
// holding its updates coalesced, RealFIFO a row per update.
func checkPausedBurst(t *testing.T, d *Demo, informer string, before, s source.Informer, hot []string, n int) {
	t.Helper()
	if pops := s.Queue.Pops - before.Queue.Pops; pops != 0 {
		t.Fatalf("%s: %d pops while paused; a paused informer pops nothing", informer, pops)
	}
	switch s.QueueKind {
	case source.DeltaFIFO:
		rows, held := 0, 0
		for _, key := range hot {
			ds := local.EngineOf(d.Informer(informer)).QueueDeltas(key)
			if len(ds) > 0 {
				rows++
			}
			for _, delta := range ds {
				if delta.Type != cache.Updated {
					t.Errorf("%s: queued delta for %s is %s, want Updated", informer, key, delta.Type)
				}
				held++
			}
		}
		if s.Queue.Depth != len(hot) || rows != len(hot) {
			t.Errorf("%s: DeltaFIFO holds %d rows, %d of them hot keys; want one per hot key (%d)", informer, s.Queue.Depth, rows, len(hot))
		}
		if held != n || s.Queue.Deltas != n {
			t.Errorf("%s: the hot rows hold %d deltas (%d in all), want the burst's %d", informer, held, s.Queue.Deltas, n)
		}
		if got, want := s.Queue.Coalesced-before.Queue.Coalesced, uint64(n-len(hot)); got != want {
			t.Errorf("%s: coalesced %d deltas, want %d", informer, got, want)
		}
	case source.RealFIFO:
		// Every update is its own row (bookmarks may sit among them).
		if s.Queue.Depth < n {
			t.Errorf("%s: RealFIFO holds %d rows, want at least one per update (%d)", informer, s.Queue.Depth, n)
		}
		if s.Queue.Coalesced != 0 {
			t.Errorf("%s: RealFIFO coalesced %d deltas", informer, s.Queue.Coalesced)
		}
	default:
		t.Fatalf("%s: unknown queue kind %q", informer, s.QueueKind)
	}
}

// listMode is ListStream when watchList, else ListPages: a test that runs
// both says which.
func listMode(watchList bool) ListMode {
	if watchList {
		return ListStream
	}
	return ListPages
}
