package fifo

import (
	"time"

	"k8s.io/client-go/tools/cache"
	utiltrace "k8s.io/utils/trace"
)

// realNoMetric discards metric updates.
type realNoMetric struct{}

func (realNoMetric) Set(float64)     {}
func (realNoMetric) Observe(float64) {}

// realMetrics returns the queue-depth gauge and processing-latency
// histogram for id. As in client-go they are published only for a
// reserved identity; unlike client-go, a nil provider means no metrics,
// because client-go's process-wide provider cannot be read from outside.
func realMetrics(id cache.InformerNameAndResource, p cache.InformerMetricsProvider) (cache.GaugeMetric, cache.HistogramMetric) {
	if p == nil || !id.Reserved() {
		return realNoMetric{}, realNoMetric{}
	}
	return p.NewQueuedItemMetric(id), p.NewProcessingLatencyMetric(id)
}

// traceIfSlow starts a trace of processing n popped items when the queue
// behind them is deeper than 10 items, which points at slow handlers
// holding up the queue. Call the returned func when processing is done; it
// logs if processing took longer than 100ms per item, at most 1s.
func (f *RealFIFO) traceIfSlow(key string, n int) func() {
	depth := f.items.len()
	if depth <= 10 {
		return func() {}
	}
	fields := []utiltrace.Field{
		{Key: "ID", Value: key},
		{Key: "Depth", Value: depth},
		{Key: "Reason", Value: "slow event handlers blocking the queue"},
	}
	if n > 1 {
		fields = append(fields, utiltrace.Field{Key: "BatchSize", Value: n})
	}
	if name := f.identifier.Name(); name != "" {
		fields = append(fields, utiltrace.Field{Key: "Name", Value: name})
	}
	if gvr := f.identifier.GroupVersionResource(); !gvr.Empty() {
		fields = append(fields, utiltrace.Field{Key: "Resource", Value: gvr})
	}
	tr := utiltrace.New("RealFIFO process", fields...)
	limit := min(time.Duration(n)*100*time.Millisecond, time.Second)
	return func() { tr.LogIfLong(limit) }
}
