package tui

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

const (
	bigObjects   = 100_000
	bigListeners = 50
	bigQueue     = 10_000
)

// lazyStore holds 100k keys and builds an entry or object only when
// asked: Entries builds every entry on each call, as a remote reader
// decodes them, and Object builds the one object shown.
type lazyStore struct {
	keys []string
}

func (s *lazyStore) Generation() uint64 { return 7 }

func (s *lazyStore) Entries() ([]source.Entry, uint64) {
	created := t0.Add(-time.Hour)
	out := make([]source.Entry, len(s.keys))
	for i, k := range s.keys {
		out[i] = source.Entry{Key: k, Labels: map[string]string{"app": "web-" + k[len(k)-1:], "tier": "frontend"}, Created: created}
	}
	return out, 7
}

func (s *lazyStore) Object(key string) (source.Object, bool) {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: key, ResourceVersion: "1",
		CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))}}
	return source.Object{Key: key, Kind: redact.Kind(obj), ResourceVersion: "1", HasMetadata: true, YAML: redact.YAML("configmaps", obj)}, true
}

func (s *lazyStore) IndexNames() []string              { return []string{"namespace"} }
func (s *lazyStore) IndexValues(string) []string       { return []string{"default"} }
func (s *lazyStore) IndexKeys(string, string) []string { return s.keys[:100] }

// newBigSource is the benchmark workload: 100k cached objects, 50
// listeners (5 stalled), a 10k-deep queue whose whole head is visible.
func newBigSource() *controlledSource {
	keys := bigKeys()
	head := make([]source.QueueItem, bigQueue)
	for i := range head {
		head[i] = source.QueueItem{Key: keys[i*7], Types: []cache.DeltaType{cache.Updated, cache.Updated}, Enqueued: t0.Add(-time.Duration(bigQueue-i) * time.Millisecond)}
	}
	var frames [][]source.Informer
	for f := 0; f < fixtureFrames; f++ {
		t := t0.Add(time.Duration(f) * time.Second)
		ls := make([]source.Listener, bigListeners)
		for i := range ls {
			ls[i] = source.Listener{Name: fmt.Sprintf("handler-%02d", i), Pending: i * f, Capacity: 1024, HighWater: i * 10,
				Delivered: source.Delivered{Update: uint64(1000 * f)}, LatencyP50: time.Millisecond, LatencyP99: 9 * time.Millisecond, Synced: true}
			if i%10 == 0 {
				ls[i].InCallback, ls[i].InCallbackSince = source.CallbackUpdate, t0.Add(-5*time.Second)
			}
		}
		frames = append(frames, []source.Informer{{
			Name: "pods", Resource: "pods", QueueKind: source.DeltaFIFO, Taken: t, Started: true, Synced: true,
			Queue: source.Queue{Kind: source.DeltaFIFO, Depth: bigQueue, Deltas: 2 * bigQueue, OldestEnqueued: head[0].Enqueued,
				Added: source.DeltaCounts{Updated: uint64(50_000 * f)}, Popped: source.DeltaCounts{Updated: uint64(50_000 * f)}, Head: head},
			Store:     source.Cache{Objects: bigObjects, Indexes: map[string]int{"namespace": 40}, Generation: 7},
			Reflector: source.Reflector{WatchOpen: true, WatchSince: t0, WatchModified: uint64(50_000 * f)},
			Listeners: ls,
		}})
	}
	events := make([]source.Event, eventLogSize)
	for i := range events {
		events[i] = source.Event{Seq: uint64(i + 1), Time: t0, Type: source.EventWatchEvent, Informer: "pods", Key: keys[i], Detail: "MODIFIED"}
	}
	return newControlledSource(sourcetest.Config{Kind: "demo", Title: "demo", Frames: frames, Events: events,
		Stores: map[string]source.StoreReader{"pods": &lazyStore{keys: keys}}}, &sourcetest.Controller{})
}

// bigHarness is a model over newBigSource at 160×48 with the store's keys
// loaded (the load runs as a command in the harness).
func bigHarness(b *testing.B) *harness {
	h := newHarness(b, newBigSource())
	h.size(160, 48)
	h.frames(fixtureFrames)
	return h
}

func bigKeys() []string {
	keys := make([]string, 0, bigObjects)
	for i := 0; i < bigObjects; i++ {
		keys = append(keys, fmt.Sprintf("namespace-%02d/web-%05d-7d9f8c6b5-x%04d", i%40, i, i%9999))
	}
	return keys
}

func BenchmarkView(b *testing.B) {
	for i, name := range []string{"pipeline", "queue", "listeners", "store", "events"} {
		b.Run(name, func(b *testing.B) {
			h := bigHarness(b)
			h.keys(fmt.Sprint(i + 1))
			if name == "store" && h.m.views[viewStore].(*storeView).scroll.n != bigObjects {
				b.Fatalf("store view holds %d keys, want %d", h.m.views[viewStore].(*storeView).scroll.n, bigObjects)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = h.m.View()
			}
		})
	}
}

// BenchmarkFilterKeystroke is one keystroke in the Store filter over 100k
// keys (or their labels), Update plus the frame drawn after it.
func BenchmarkFilterKeystroke(b *testing.B) {
	cases := []struct {
		name  string
		typed []string // typed before the measured key
		key   string
	}{
		{"first-char-all-match", nil, "w"},            // full scan, every key matches
		{"first-char-no-match", nil, "Z"},             // full scan, no key matches
		{"narrowing", []string{"w", "e", "b"}, "9"},   // searches the previous matches only
		{"label-query", []string{"a", "p", "p"}, "="}, // switches to a full scan of the labels
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			h := bigHarness(b)
			h.keys("4", "/")
			h.keys(tc.typed...)
			b.ReportAllocs()
			for b.Loop() {
				h.send(keyMsg(tc.key))
				_ = h.m.View()
				b.StopTimer()
				h.send(keyMsg("backspace"))
				// Reset the matcher's memory so every iteration measures the
				// same kind of search, not a cache hit.
				sv := h.m.views[viewStore].(*storeView)
				sv.match.query, sv.match.result = "", nil
				sv.tmatch.applied, sv.tmatch.specResult = "", nil
				sv.applyFilter()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkLoadKeys is the off-UI read of 100k keys and labels that runs at
// most once a second while the cache changes.
func BenchmarkLoadKeys(b *testing.B) {
	st := &lazyStore{keys: bigKeys()}
	b.ReportAllocs()
	for b.Loop() {
		_ = loadKeys("pods", st)
	}
}
