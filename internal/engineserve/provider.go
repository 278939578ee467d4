package engineserve

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/cache"
)

// MetricsProvider is a cache.InformerMetricsProvider publishing
// client-go's informer metrics (informer_queued_items,
// informer_processing_latency_seconds, informer_store_resource_version,
// labelled name, group, version, resource) in a Prometheus registry. Pass
// it as engine.Options.MetricsProvider, with an engine.Options.Identifier,
// and give the same registry to Options.Registry so /metrics shows them.
type MetricsProvider struct {
	queued  *prometheus.GaugeVec
	latency *prometheus.HistogramVec
	rv      *prometheus.GaugeVec
}

var _ cache.InformerMetricsProvider = (*MetricsProvider)(nil)

// NewMetricsProvider registers client-go's informer metrics in reg.
func NewMetricsProvider(reg prometheus.Registerer) (*MetricsProvider, error) {
	labels := []string{"name", "group", "version", "resource"}
	p := &MetricsProvider{
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "informer_queued_items",
			Help: "Items queued in the informer's FIFO and waiting to be processed.",
		}, labels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "informer_processing_latency_seconds",
			Help:    "Time to process an item popped from the informer's FIFO (handlers included).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, labels),
		rv: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "informer_store_resource_version",
			Help: "The resourceVersion the informer's store stands at.",
		}, labels),
	}
	for _, c := range []prometheus.Collector{p.queued, p.latency, p.rv} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("agent: cannot register client-go's informer metrics: %w", err)
		}
	}
	return p, nil
}

func labelValues(id cache.InformerNameAndResource) []string {
	gvr := id.GroupVersionResource()
	return []string{id.Name(), gvr.Group, gvr.Version, gvr.Resource}
}

// NewQueuedItemMetric implements cache.InformerMetricsProvider.
func (p *MetricsProvider) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return reservedGauge{id: id, vec: p.queued, labels: labelValues(id)}
}

// NewProcessingLatencyMetric implements cache.InformerMetricsProvider.
func (p *MetricsProvider) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	return reservedHistogram{id: id, vec: p.latency, labels: labelValues(id)}
}

// NewStoreResourceVersionMetric implements cache.InformerMetricsProvider.
func (p *MetricsProvider) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return reservedGauge{id: id, vec: p.rv, labels: labelValues(id)}
}

// reservedGauge updates its series only while the informer's identifier
// is reserved, and removes it once the informer released it, as client-go
// asks of providers (dynamic informers come and go).
type reservedGauge struct {
	id     cache.InformerNameAndResource
	vec    *prometheus.GaugeVec
	labels []string
}

func (g reservedGauge) Set(v float64) {
	if !g.id.Reserved() {
		g.vec.DeleteLabelValues(g.labels...)
		return
	}
	g.vec.WithLabelValues(g.labels...).Set(v)
}

type reservedHistogram struct {
	id     cache.InformerNameAndResource
	vec    *prometheus.HistogramVec
	labels []string
}

func (h reservedHistogram) Observe(v float64) {
	if !h.id.Reserved() {
		h.vec.DeleteLabelValues(h.labels...)
		return
	}
	h.vec.WithLabelValues(h.labels...).Observe(v)
}
