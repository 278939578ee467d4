package engine

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// recordingMetrics is a cache.InformerMetricsProvider that keeps every
// update it is given, per metric, and the identities it was asked for.
type recordingMetrics struct {
	mu        sync.Mutex
	ids       []string
	depth     []float64
	latencies []float64
	storeRV   []float64
}

func (m *recordingMetrics) asked(kind string, id cache.InformerNameAndResource) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ids = append(m.ids, kind+" "+id.Name()+" "+id.GroupVersionResource().String())
}

func (m *recordingMetrics) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	m.asked("queued", id)
	return recordedGauge{m, &m.depth}
}

func (m *recordingMetrics) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	m.asked("latency", id)
	return recordedGauge{m, &m.latencies}
}

func (m *recordingMetrics) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	m.asked("storeRV", id)
	return recordedGauge{m, &m.storeRV}
}

// recordedGauge appends each value to one of recordingMetrics' slices; it
// serves as gauge (Set) and histogram (Observe).
type recordedGauge struct {
	m  *recordingMetrics
	to *[]float64
}

func (g recordedGauge) Set(v float64)     { g.add(v) }
func (g recordedGauge) Observe(v float64) { g.add(v) }

func (g recordedGauge) add(v float64) {
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	*g.to = append(*g.to, v)
}

// values returns a copy of one metric's updates.
func (m *recordingMetrics) values(of *[]float64) []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]float64(nil), *of...)
}

func (m *recordingMetrics) last(of *[]float64) (float64, bool) {
	vs := m.values(of)
	if len(vs) == 0 {
		return 0, false
	}
	return vs[len(vs)-1], true
}

func (m *recordingMetrics) total() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.ids) + len(m.depth) + len(m.latencies) + len(m.storeRV)
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// newMetricsID reserves a process-unique informer name for the test.
func newMetricsID(t *testing.T, name string) (*cache.InformerName, cache.InformerNameAndResource) {
	t.Helper()
	n, err := cache.NewInformerName(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Release)
	return n, n.WithResource(podsGVR)
}

// popEvents counts the process calls the informer made (with ItemEvents,
// one Pop event per Pop or PopBatch call).
func popEvents(inf *Informer) int {
	evs, _, _ := inf.Events().Since(0, 0)
	n := 0
	for _, e := range evs {
		if e.Type == pipeline.EventPop {
			n++
		}
	}
	return n
}

// TestInformerFeedsClientGoMetrics runs an informer with a reserved
// identity and a recording provider: the queue-depth gauge follows the
// queue up and back to 0, every process call is observed once, and the
// store's resourceVersion is published once synced and after each change.
func TestInformerFeedsClientGoMetrics(t *testing.T) {
	for _, kind := range queueKinds {
		t.Run(kind.String(), func(t *testing.T) {
			name := "informtop-engine-metrics-" + kind.String()
			_, id := newMetricsID(t, name)
			m := &recordingMetrics{}
			src := newTestSource(t)
			for _, n := range []string{"a", "b", "c"} {
				src.Add(pod(n)) // resourceVersions 1-3
			}
			inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, Options{
				Name: "pods", Queue: kind, Identifier: id, MetricsProvider: m,
				Instrumentation: Instrumentation{ItemEvents: true},
			})
			// Paused before Run, the first pop already waits at the gate,
			// so nothing leaves the queue until we resume.
			inf.SetPaused(true)
			runInformer(t, inf)
			waitfor.True(t, "the watch to open", func() bool { return inf.Snapshot().Reflector.WatchOpen })
			src.Add(pod("d")) // 4
			src.Add(pod("e")) // 5

			// DeltaFIFO: a row per key (three listed, two watched);
			// RealFIFO: one ReplacedAll item and two Added items.
			want := map[QueueKind]int{DeltaFIFO: 5, RealFIFO: 3}[kind]
			waitfor.True(t, "the queue to fill", func() bool { return inf.Snapshot().Queue.Depth == want })
			depth := m.values(&m.depth)
			if len(depth) != want || depth[len(depth)-1] != float64(want) {
				t.Fatalf("queue depth gauge while paused = %v, want 1 to %d, one per new row", depth, want)
			}
			for i, v := range depth {
				if v != float64(i+1) {
					t.Fatalf("queue depth gauge while paused = %v, want it to rise by one per row", depth)
				}
			}
			if len(m.values(&m.latencies)) != 0 {
				t.Fatal("processing latency observed before anything was popped")
			}

			inf.SetPaused(false)
			waitfor.True(t, "sync and the watched pods", func() bool {
				s := inf.Snapshot()
				return s.Synced && s.Queue.Depth == 0 && s.Store.Objects == 5
			})
			if v, _ := m.last(&m.depth); v != 0 {
				t.Fatalf("queue depth gauge after draining = %v, want 0 (all updates %v)", v, m.values(&m.depth))
			}
			// Latency is observed once each process call returns; with
			// ItemEvents each call also emitted one Pop event.
			waitfor.True(t, "one latency observation per process call", func() bool {
				return len(m.values(&m.latencies)) == popEvents(inf)
			})
			calls := len(m.values(&m.latencies))
			if kind == DeltaFIFO && uint64(calls) != inf.Snapshot().Queue.Pops {
				t.Fatalf("%d latency observations for %d DeltaFIFO pops", calls, inf.Snapshot().Queue.Pops)
			}
			if kind == RealFIFO && calls != 2 { // the ReplacedAll alone, then d and e as one batch
				t.Fatalf("%d latency observations, want 2 (one per Pop/PopBatch call)", calls)
			}
			for _, v := range m.values(&m.latencies) {
				if v < 0 {
					t.Fatalf("negative processing latency %v", v)
				}
			}

			storeRV := inf.Indexer().Stats().LastResourceVersion
			rv, err := strconv.ParseFloat(storeRV, 64)
			if err != nil || rv != 5 {
				t.Fatalf("store resourceVersion = %q, want 5", storeRV)
			}
			if v, ok := m.last(&m.storeRV); !ok || v != rv {
				t.Fatalf("store resourceVersion gauge = %v (set %t), want %v; all updates %v", v, ok, rv, m.values(&m.storeRV))
			}
			// The initial list reached the store first: by one Replace at
			// the list's resourceVersion, or one Add per listed pod.
			wantRVs := map[QueueKind]int{DeltaFIFO: 5, RealFIFO: 2}[kind]
			if got := m.values(&m.storeRV); len(got) != wantRVs || got[0] > 3 {
				t.Fatalf("store resourceVersion gauge updates = %v, want %d starting with the initial list", got, wantRVs)
			}

			gvr := podsGVR.String()
			wantIDs := fmt.Sprint([]string{"storeRV " + name + " " + gvr, "queued " + name + " " + gvr, "latency " + name + " " + gvr})
			m.mu.Lock()
			ids := fmt.Sprint(m.ids)
			m.mu.Unlock()
			if ids != wantIDs {
				t.Fatalf("metrics asked for %s, want %s", ids, wantIDs)
			}
		})
	}
}

// TestInformerMetricsNeedAReservedIdentity: as in client-go, a zero
// identity or a second registration of the same name and resource
// publishes nothing, and neither does a reserved identity without a
// provider (client-go's process-wide provider cannot be reached).
func TestInformerMetricsNeedAReservedIdentity(t *testing.T) {
	name, first := newMetricsID(t, "informtop-engine-metrics-duplicate")
	duplicate := name.WithResource(podsGVR)
	if !first.Reserved() || duplicate.Reserved() {
		t.Fatalf("reserved: first %t, duplicate %t", first.Reserved(), duplicate.Reserved())
	}
	for _, kind := range queueKinds {
		for _, tc := range []struct {
			what string
			id   cache.InformerNameAndResource
		}{{"zero identity", cache.InformerNameAndResource{}}, {"duplicate identity", duplicate}} {
			t.Run(kind.String()+"/"+tc.what, func(t *testing.T) {
				m := &recordingMetrics{}
				src := newTestSource(t)
				src.Add(pod("a"))
				inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, Options{
					Name: "pods", Queue: kind, Identifier: tc.id, MetricsProvider: m,
				})
				runInformer(t, inf)
				waitfor.True(t, "sync", func() bool { return inf.HasSynced() && len(inf.GetStore().ListKeys()) == 1 })
				if n := m.total(); n != 0 {
					t.Fatalf("provider got %d calls: %v", n, m.ids)
				}
			})
		}
		t.Run(kind.String()+"/no provider", func(t *testing.T) {
			_, id := newMetricsID(t, "informtop-engine-metrics-no-provider-"+kind.String())
			src := newTestSource(t)
			src.Add(pod("a"))
			inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, Options{Name: "pods", Queue: kind, Identifier: id})
			runInformer(t, inf)
			waitfor.True(t, "sync", func() bool { return inf.HasSynced() && len(inf.GetStore().ListKeys()) == 1 })
		})
	}
}
