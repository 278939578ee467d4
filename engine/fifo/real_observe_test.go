package fifo

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// rfMetrics records what a queue publishes through its metrics provider.
type rfMetrics struct {
	mu        sync.Mutex
	queued    []float64
	latencies int
}

func (m *rfMetrics) NewQueuedItemMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	return rfGauge{m}
}
func (m *rfMetrics) NewProcessingLatencyMetric(cache.InformerNameAndResource) cache.HistogramMetric {
	return rfGauge{m}
}
func (m *rfMetrics) NewStoreResourceVersionMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	return rfGauge{m}
}

type rfGauge struct{ m *rfMetrics }

func (g rfGauge) Set(v float64) {
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	g.m.queued = append(g.m.queued, v)
}

func (g rfGauge) Observe(float64) {
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	g.m.latencies++
}

// TestRealFIFOMetricsMatchClientGo: with a reserved identity, the queue
// length gauge and the processing latency histogram get the same updates
// as client-go's; without one, nothing is published.
func TestRealFIFOMetricsMatchClientGo(t *testing.T) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	newID := func(name string) cache.InformerNameAndResource {
		n, err := cache.NewInformerName(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(n.Release)
		return n.WithResource(gvr)
	}
	run := func(q cache.QueueWithBatch) {
		for _, p := range []*corev1.Pod{rfPod("a", "1"), rfPod("b", "2"), rfPod("a", "3")} {
			rfNoErr(t, q.Add(p))
		}
		c := &rfConsumer{}
		rfNoErr(t, c.popBatch(q)) // a, b
		rfNoErr(t, c.pop(q))      // a again
	}
	ours, ref, anonymous := &rfMetrics{}, &rfMetrics{}, &rfMetrics{}
	opts := func(id cache.InformerNameAndResource, m *rfMetrics) cache.RealFIFOOptions {
		o := rfDefaultOpts()
		o.Identifier, o.MetricsProvider = id, m
		return o
	}
	f := NewRealFIFO(opts(newID("rf-metrics-ours"), ours))
	if f.Name() != "rf-metrics-ours" {
		t.Fatalf("Name() = %q, want the identifier's name", f.Name())
	}
	run(f)
	run(cache.NewRealFIFOWithOptions(opts(newID("rf-metrics-client-go"), ref)))
	run(NewRealFIFO(opts(cache.InformerNameAndResource{}, anonymous)))
	if fmt.Sprint(ours.queued) != "[1 2 3 1 0]" || ours.latencies != 2 {
		t.Fatalf("ours published queued %v and %d latencies, want [1 2 3 1 0] and 2", ours.queued, ours.latencies)
	}
	if fmt.Sprint(ours.queued) != fmt.Sprint(ref.queued) || ours.latencies != ref.latencies {
		t.Fatalf("ours published queued %v and %d latencies, client-go %v and %d", ours.queued, ours.latencies, ref.queued, ref.latencies)
	}
	if len(anonymous.queued) != 0 || anonymous.latencies != 0 {
		t.Fatalf("an unreserved identity published %v and %d latencies", anonymous.queued, anonymous.latencies)
	}
}
