package agent

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"

	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/source"
)

// WorkqueueMetrics is a workqueue.MetricsProvider that keeps, per queue
// name, what client-go's workqueues report: depth, adds, retries, how
// long keys waited and how long workers took (histograms with the
// buckets of client-go's own workqueue metrics, and the largest), and
// the work in progress. Pass it as the MetricsProvider of a
// workqueue's config (the queue needs a Name; client-go records nothing
// for an unnamed queue) and as Options.Workqueues, so frames carry the
// queues (source.Frame.Workqueues) and /metrics exports them.
//
// Recording is a few atomic operations: it never blocks the controller
// and never allocates after the queue is built. Queues given the same
// name share one entry, as they share one series with client-go's own
// Prometheus provider. The zero value is not usable; call
// NewWorkqueueMetrics.
type WorkqueueMetrics struct {
	mu     sync.Mutex
	queues map[string]*queueStats
}

var _ workqueue.MetricsProvider = (*WorkqueueMetrics)(nil)

// NewWorkqueueMetrics returns a provider that has seen no queue.
func NewWorkqueueMetrics() *WorkqueueMetrics {
	return &WorkqueueMetrics{queues: map[string]*queueStats{}}
}

// queueStats is one queue's figures; every field is written by the queue
// (under its own lock) and read by Snapshot at any time.
type queueStats struct {
	name           string
	depth          atomic.Int64
	adds, retries  atomic.Uint64
	latency, work  durationStats
	unfinished     atomic.Int64 // nanoseconds
	longestRunning atomic.Int64 // nanoseconds
}

// workqueueBuckets are the upper bounds, in seconds, of the duration
// histograms: client-go's workqueue metrics' (component-base's
// ExponentialBuckets(10e-9, 10, 10), 10 ns to 10 s), so a dashboard reads
// the agent's and client-go's alike.
var workqueueBuckets = prometheus.ExponentialBuckets(10e-9, 10, 10)

// durationStats accumulates observations given in seconds. Count, sum
// and buckets are read separately, so a read mid-observation may lag by
// one.
type durationStats struct {
	count atomic.Uint64
	sum   atomic.Int64 // nanoseconds
	max   atomic.Int64 // nanoseconds
	// in counts the observations of each bucket alone (not cumulative):
	// in[i] those above bound i-1 and at most bound i; above the last
	// bound only count has them.
	in [10]atomic.Uint64
}

func (d *durationStats) Observe(seconds float64) {
	ns := nanos(seconds)
	if i := sort.SearchFloat64s(workqueueBuckets, float64(ns)/float64(time.Second)); i < len(d.in) {
		d.in[i].Add(1)
	}
	d.sum.Add(ns)
	d.count.Add(1)
	for {
		old := d.max.Load()
		if ns <= old || d.max.CompareAndSwap(old, ns) {
			return
		}
	}
}

// histogram is d as Prometheus' histogram has it: cumulative buckets.
func (d *durationStats) histogram() serve.Histogram {
	h := serve.Histogram{Buckets: make(map[float64]uint64, len(workqueueBuckets))}
	var cum uint64
	for i, le := range workqueueBuckets {
		cum += d.in[i].Load()
		h.Buckets[le] = cum
	}
	h.Sum = float64(d.sum.Load()) / float64(time.Second)
	// Read last, so no bucket counts more than the whole.
	h.Count = max(d.count.Load(), cum)
	return h
}

func (d *durationStats) read() (mean, largest time.Duration) {
	n := d.count.Load()
	sum := d.sum.Load()
	if n > 0 {
		mean = time.Duration(sum / int64(n))
	}
	return mean, time.Duration(d.max.Load())
}

// nanos converts the seconds a workqueue observes to nanoseconds, reading
// negative or NaN values as 0 and bounding huge ones.
func nanos(seconds float64) int64 {
	switch ns := seconds * float64(time.Second); {
	case !(ns > 0): // negative, zero or NaN
		return 0
	case ns >= math.MaxInt64/2:
		return math.MaxInt64 / 2 // leaves room for sums
	default:
		return int64(ns)
	}
}

// stats returns the entry of the queue named name, creating it.
func (m *WorkqueueMetrics) stats(name string) *queueStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	q, ok := m.queues[name]
	if !ok {
		q = &queueStats{name: name}
		m.queues[name] = q
	}
	return q
}

// sorted returns every queue, sorted by name; each is read through its
// own atomics, so the lock is held only while the map is copied.
func (m *WorkqueueMetrics) sorted() []*queueStats {
	m.mu.Lock()
	queues := make([]*queueStats, 0, len(m.queues))
	for _, q := range m.queues {
		queues = append(queues, q)
	}
	m.mu.Unlock()
	slices.SortFunc(queues, func(a, b *queueStats) int { return strings.Compare(a.name, b.name) })
	return queues
}

// snapshot returns every queue's figures, sorted by name.
func (m *WorkqueueMetrics) snapshot() []source.Workqueue {
	queues := m.sorted()
	out := make([]source.Workqueue, 0, len(queues))
	for _, q := range queues {
		w := source.Workqueue{
			Name:           q.name,
			Depth:          max(q.depth.Load(), 0),
			Adds:           q.adds.Load(),
			Retries:        q.retries.Load(),
			UnfinishedWork: time.Duration(q.unfinished.Load()),
			LongestRunning: time.Duration(q.longestRunning.Load()),
		}
		w.QueueLatencyMean, w.QueueLatencyMax = q.latency.read()
		w.WorkDurationMean, w.WorkDurationMax = q.work.read()
		out = append(out, w)
	}
	return out
}

// histograms returns every queue's duration histograms, sorted by name.
func (m *WorkqueueMetrics) histograms() []serve.WorkqueueHistograms {
	queues := m.sorted()
	out := make([]serve.WorkqueueHistograms, 0, len(queues))
	for _, q := range queues {
		out = append(out, serve.WorkqueueHistograms{Name: q.name, QueueDuration: q.latency.histogram(), WorkDuration: q.work.histogram()})
	}
	return out
}

// NewDepthMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return depthMetric{m.stats(name)}
}

// NewAddsMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return counterMetric{&m.stats(name).adds}
}

// NewLatencyMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return &m.stats(name).latency
}

// NewWorkDurationMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return &m.stats(name).work
}

// NewUnfinishedWorkSecondsMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return secondsGauge{&m.stats(name).unfinished}
}

// NewLongestRunningProcessorSecondsMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return secondsGauge{&m.stats(name).longestRunning}
}

// NewRetriesMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return counterMetric{&m.stats(name).retries}
}

type depthMetric struct{ q *queueStats }

func (d depthMetric) Inc() { d.q.depth.Add(1) }
func (d depthMetric) Dec() { d.q.depth.Add(-1) }

type counterMetric struct{ n *atomic.Uint64 }

func (c counterMetric) Inc() { c.n.Add(1) }

type secondsGauge struct{ ns *atomic.Int64 }

func (g secondsGauge) Set(seconds float64) { g.ns.Store(nanos(seconds)) }
