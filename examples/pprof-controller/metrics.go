package main

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// metrics is a workqueue.MetricsProvider registering the series
// Kubernetes' components and controller-runtime register, under the same
// names and the label name, on reg.
type metrics struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, work              *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	name := []string{"name"}
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12)
	m := &metrics{
		depth:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_depth", Help: "Current depth of workqueue"}, name),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_unfinished_work_seconds", Help: "Seconds of work in progress not yet observed by work_duration"}, name),
		longest:    prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_longest_running_processor_seconds", Help: "Seconds the longest running processor has been running"}, name),
		adds:       prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_adds_total", Help: "Total number of adds handled by workqueue"}, name),
		retries:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_retries_total", Help: "Total number of retries handled by workqueue"}, name),
		latency:    prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_queue_duration_seconds", Help: "How long an item stays in workqueue before being requested", Buckets: buckets}, name),
		work:       prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_work_duration_seconds", Help: "How long processing an item from workqueue takes", Buckets: buckets}, name),
	}
	reg.MustRegister(m.depth, m.unfinished, m.longest, m.adds, m.retries, m.latency, m.work)
	return m
}

func (m *metrics) NewDepthMetric(n string) workqueue.GaugeMetric { return m.depth.WithLabelValues(n) }
func (m *metrics) NewAddsMetric(n string) workqueue.CounterMetric {
	return m.adds.WithLabelValues(n)
}
func (m *metrics) NewLatencyMetric(n string) workqueue.HistogramMetric {
	return m.latency.WithLabelValues(n)
}
func (m *metrics) NewWorkDurationMetric(n string) workqueue.HistogramMetric {
	return m.work.WithLabelValues(n)
}
func (m *metrics) NewUnfinishedWorkSecondsMetric(n string) workqueue.SettableGaugeMetric {
	return m.unfinished.WithLabelValues(n)
}
func (m *metrics) NewLongestRunningProcessorSecondsMetric(n string) workqueue.SettableGaugeMetric {
	return m.longest.WithLabelValues(n)
}
func (m *metrics) NewRetriesMetric(n string) workqueue.CounterMetric {
	return m.retries.WithLabelValues(n)
}
