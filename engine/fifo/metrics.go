package fifo

import (
	"time"

	"k8s.io/client-go/tools/cache"
)

// queueMetrics are the two informer metrics a queue feeds through a
// cache.InformerMetricsProvider: its depth (a gauge) and how long each
// process call took (a histogram, in seconds). Both queues set depth under
// their lock on every change to it, so the gauge's updates arrive in the
// order the queue changed.
type queueMetrics struct {
	depth   cache.GaugeMetric
	latency cache.HistogramMetric
	on      bool // published: only then is processing timed
}

// timed calls process and, when metrics are published, observes how long
// it took. A panicking process is not observed.
func (m queueMetrics) timed(process func() error) error {
	if !m.on {
		return process()
	}
	start := time.Now()
	err := process()
	m.latency.Observe(time.Since(start).Seconds())
	return err
}

// noMetric discards updates; it stands in for both metrics when none are
// published, so the hot path never checks.
type noMetric struct{}

func (noMetric) Set(float64)     {}
func (noMetric) Observe(float64) {}

// newQueueMetrics asks p for the queue's metrics when id is reserved at
// construction, which is client-go's rule: a zero, released or duplicate
// identity publishes nothing. A nil p publishes nothing either; client-go
// would fall back to the provider registered with
// cache.SetInformerMetricsProvider, but that one cannot be read from
// outside client-go.
func newQueueMetrics(id cache.InformerNameAndResource, p cache.InformerMetricsProvider) queueMetrics {
	if p == nil || !id.Reserved() {
		return queueMetrics{depth: noMetric{}, latency: noMetric{}}
	}
	return queueMetrics{depth: p.NewQueuedItemMetric(id), latency: p.NewProcessingLatencyMetric(id), on: true}
}
