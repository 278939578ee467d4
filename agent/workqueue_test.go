package agent

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve/servetest"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
)

// queueNamed finds the queue called name in a snapshot.
func queueNamed(t *testing.T, queues []source.Workqueue, name string) source.Workqueue {
	t.Helper()
	for _, q := range queues {
		if q.Name == name {
			return q
		}
	}
	t.Fatalf("no workqueue %q in %+v", name, queues)
	return source.Workqueue{}
}

// A real rate-limited workqueue on a fake clock reports through the
// provider: adds and depth, the wait and the work of a key, the work in
// progress, and a retry. Frames and /metrics carry the same figures.
func TestWorkqueueMetricsFollowARealQueue(t *testing.T) {
	m := NewWorkqueueMetrics()
	clk := testingclock.NewFakeClock(time.Now())
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployments", MetricsProvider: m, Clock: clk})
	t.Cleanup(q.ShutDown)
	// The queue's tickers (the delaying loop's heartbeat, the sampling of
	// work in progress) start in goroutines; step the clock once both wait.
	waitfor.True(t, "the queue's tickers", func() bool { return clk.Waiters() >= 2 })

	for _, k := range []string{"ns/a", "ns/b", "ns/c"} {
		q.Add(k)
	}
	q.Add("ns/a") // already waiting: not an add
	if got := queueNamed(t, m.snapshot(), "deployments"); got.Depth != 3 || got.Adds != 3 || got.Retries != 0 {
		t.Fatalf("after 3 adds: %+v", got)
	}

	clk.Step(2 * time.Second)
	key, _ := q.Get()
	clk.Step(3 * time.Second)
	// The queue samples its work in progress on its own ticker.
	waitfor.True(t, "the work in progress to read 3s", func() bool {
		w := queueNamed(t, m.snapshot(), "deployments")
		return w.LongestRunning == 3*time.Second && w.UnfinishedWork == 3*time.Second
	})
	q.Done(key)
	q.AddRateLimited(key)

	want := source.Workqueue{
		Name: "deployments", Depth: 2, Adds: 3, Retries: 1,
		QueueLatencyMean: 2 * time.Second, QueueLatencyMax: 2 * time.Second,
		WorkDurationMean: 3 * time.Second, WorkDurationMax: 3 * time.Second,
		UnfinishedWork: 3 * time.Second, LongestRunning: 3 * time.Second,
	}
	got := m.snapshot()
	if len(got) != 1 || got[0] != want {
		t.Fatalf("snapshot = %+v\nwant       %+v", got, want)
	}

	set := NewSet()
	podInformer(set, newTestSource(t), "pods")
	srv := server(t, set, Options{Workqueues: m})

	var fr api.Frame
	body := servetest.GetJSON(t, srv, api.PathFrame, &fr)
	if len(fr.Workqueues) != 1 || fr.Workqueues[0] != want {
		t.Errorf("frame workqueues = %+v\nwant %+v", fr.Workqueues, want)
	}
	var raw struct {
		Workqueues []map[string]any `json:"workqueues"`
	}
	if err := json.Unmarshal(body, &raw); err != nil || len(raw.Workqueues) != 1 ||
		raw.Workqueues[0]["name"] != "deployments" || raw.Workqueues[0]["adds"] != 3.0 || raw.Workqueues[0]["retries"] != 1.0 {
		t.Errorf("frame JSON workqueues = %+v (%v)", raw.Workqueues, err)
	}

	status, metrics := servetest.Get(t, srv, http.MethodGet, api.PathMetrics, "")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d %s", status, metrics)
	}
	mfs := servetest.Scrape(t, metrics)
	labels := map[string]string{"name": "deployments"}
	for _, c := range []struct {
		name string
		want float64
	}{
		{"informtop_workqueue_depth", 2},
		{"informtop_workqueue_adds_total", 3},
		{"informtop_workqueue_retries_total", 1},
		{"informtop_workqueue_unfinished_work_seconds", 3},
		{"informtop_workqueue_longest_running_processor_seconds", 3},
	} {
		if got := servetest.Value(t, mfs, c.name, labels); got != c.want {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}

	// The durations are histograms with client-go's workqueue buckets:
	// the one key waited 2 s (in the 10 s bucket, not the 1 s one) and
	// was worked on for 3 s.
	for _, c := range []struct {
		name string
		sum  float64
	}{{"informtop_workqueue_queue_duration_seconds", 2}, {"informtop_workqueue_work_duration_seconds", 3}} {
		mf := mfs[c.name]
		if mf == nil || mf.GetType() != dto.MetricType_HISTOGRAM || len(mf.GetMetric()) != 1 {
			t.Errorf("%s: %v, want one histogram", c.name, mf)
			continue
		}
		h := mf.GetMetric()[0].GetHistogram()
		buckets := map[float64]uint64{}
		for _, b := range h.GetBucket() {
			buckets[b.GetUpperBound()] = b.GetCumulativeCount()
		}
		if h.GetSampleCount() != 1 || h.GetSampleSum() != c.sum || len(buckets) != 11 || buckets[1] != 0 || buckets[10] != 1 {
			t.Errorf("%s: count %d sum %v buckets %v; want 1 observation of %vs, in the 10 s bucket of client-go's ten and +Inf", c.name, h.GetSampleCount(), h.GetSampleSum(), buckets, c.sum)
		}
	}
	if strings.Contains(string(metrics), "_max") {
		t.Errorf("/metrics has a maximum, which never resets:\n%s", metrics)
	}

	// Read at scrape time: a new add shows once the scrape answer
	// shared with others (a second at most) is past.
	q.Add("ns/d")
	waitfor.True(t, "a scrape to count the add", func() bool {
		_, metrics = servetest.Get(t, srv, http.MethodGet, api.PathMetrics, "")
		return servetest.Value(t, servetest.Scrape(t, metrics), "informtop_workqueue_adds_total", labels) == 4
	})
}

// Without Options.Workqueues neither frames nor /metrics mention queues.
func TestNoWorkqueuesWithoutTheProvider(t *testing.T) {
	set := NewSet()
	podInformer(set, newTestSource(t), "pods")
	srv := server(t, set, Options{})
	var fr api.Frame
	if body := servetest.GetJSON(t, srv, api.PathFrame, &fr); strings.Contains(string(body), "workqueues") {
		t.Errorf("frame mentions workqueues: %s", body)
	}
	if _, body := servetest.Get(t, srv, http.MethodGet, api.PathMetrics, ""); strings.Contains(string(body), "informtop_workqueue_") {
		t.Errorf("/metrics has workqueue series:\n%s", body)
	}
	// A provider that saw no queue yet: no series, no frame entries.
	srv = server(t, set, Options{Workqueues: NewWorkqueueMetrics()})
	if body := servetest.GetJSON(t, srv, api.PathFrame, &fr); strings.Contains(string(body), "workqueues") {
		t.Errorf("frame mentions workqueues: %s", body)
	}
}

// A provider asked twice for one name (two queues, or one rebuilt) keeps
// one entry; the snapshot is sorted by name.
func TestWorkqueuesSharingANameShareTheirFigures(t *testing.T) {
	m := NewWorkqueueMetrics()
	for range 2 {
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "shared", MetricsProvider: m})
		t.Cleanup(q.ShutDown)
		q.Add("k")
	}
	other := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "a-first", MetricsProvider: m})
	t.Cleanup(other.ShutDown)
	other.Add("x")

	got := m.snapshot()
	if len(got) != 2 || got[0].Name != "a-first" || got[1].Name != "shared" {
		t.Fatalf("snapshot = %+v, want a-first then shared", got)
	}
	if got[1].Adds != 2 || got[1].Depth != 2 || got[0].Adds != 1 {
		t.Errorf("snapshot = %+v", got)
	}
}

// Observations arrive in seconds; odd values do not corrupt the figures.
func TestWorkqueueObservationsInSeconds(t *testing.T) {
	m := NewWorkqueueMetrics()
	lat := m.NewLatencyMetric("q")
	for _, v := range []float64{0.5, 1.5, -1, math.NaN()} {
		lat.Observe(v)
	}
	m.NewLongestRunningProcessorSecondsMetric("q").Set(math.Inf(1))
	m.NewUnfinishedWorkSecondsMetric("q").Set(0.25)
	w := queueNamed(t, m.snapshot(), "q")
	if w.QueueLatencyMax != 1500*time.Millisecond || w.QueueLatencyMean != 500*time.Millisecond {
		t.Errorf("latency mean %v max %v, want 500ms and 1.5s", w.QueueLatencyMean, w.QueueLatencyMax)
	}
	if w.LongestRunning <= 0 || w.UnfinishedWork != 250*time.Millisecond {
		t.Errorf("longest %v, unfinished %v", w.LongestRunning, w.UnfinishedWork)
	}
}

// Recording from many goroutines while snapshots are read: the race
// detector watches, and every add is counted.
func TestWorkqueueMetricsAreSafeConcurrently(t *testing.T) {
	m := NewWorkqueueMetrics()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			adds, depth, work := m.NewAddsMetric("q"), m.NewDepthMetric("q"), m.NewWorkDurationMetric("q")
			for i := range 1000 {
				adds.Inc()
				depth.Inc()
				work.Observe(float64(i) / 1000)
				depth.Dec()
			}
		})
	}
	wg.Go(func() {
		for range 100 {
			_ = m.snapshot()
		}
	})
	wg.Wait()
	w := queueNamed(t, m.snapshot(), "q")
	if w.Adds != 4000 || w.Depth != 0 || w.WorkDurationMax != 999*time.Millisecond {
		t.Errorf("after 4000 adds: %+v", w)
	}
}
