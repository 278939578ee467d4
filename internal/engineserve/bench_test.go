package engineserve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/shared/benchlw"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/internal/benchrun"
)

// The agent's benchmarks: what serving a slow client costs a controller's
// watch throughput (engine's BenchmarkWatchThroughput workload, run longer),
// and what one /metrics scrape costs with many informers and listeners.

func benchInformer(lw cache.ListerWatcher, name string) *engine.Informer {
	return benchInformerWith(lw, name, engine.Instrumentation{})
}

func benchInformerWith(lw cache.ListerWatcher, name string, in engine.Instrumentation) *engine.Informer {
	return engine.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, engine.Options{
		Name: name, Resource: "pods",
		Indexers:        cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		Instrumentation: in,
	})
}

// slowClient pulls frames the way a slow informtop attach would, reading
// each body at about 64 KiB/s and pausing 50ms between pulls, and scrapes
// /metrics every 100ms, until stop is called.
type slowClient struct {
	frames, scrapes atomic.Int64
	bytes           atomic.Int64
	events, missed  atomic.Int64
	errs            chan error
	cancel          context.CancelFunc
	wg              sync.WaitGroup
}

func startSlowClient(base string, client *http.Client) *slowClient {
	ctx, cancel := context.WithCancel(context.Background())
	c := &slowClient{cancel: cancel, errs: make(chan error, 2)}
	// get reads url; for frames (run set) slowly, keeping the relay's run
	// the cursor belongs to.
	get := func(url string, run *string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		throttle := run != nil
		if throttle {
			req.Header.Set(headerBenchRun, *run)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		if !throttle {
			return io.ReadAll(resp.Body)
		}
		*run = resp.Header.Get(headerBenchRun)
		var body []byte
		buf := make([]byte, 1024)
		for {
			n, err := resp.Body.Read(buf)
			body = append(body, buf[:n]...)
			if err == io.EOF {
				return body, nil
			}
			if err != nil {
				return nil, err
			}
			if !sleepCtx(ctx, 16*time.Millisecond) {
				return nil, ctx.Err()
			}
		}
	}
	report := func(err error) {
		if ctx.Err() == nil {
			select {
			case c.errs <- err:
			default:
			}
		}
	}
	c.wg.Go(func() {
		var cursor uint64
		var run string
		for {
			body, err := get(base+api.PathFrame+"?max=4096&cursor="+strconv.FormatUint(cursor, 10), &run)
			if err != nil {
				report(err)
				return
			}
			var f struct {
				Next   uint64            `json:"next"`
				Events []json.RawMessage `json:"events"`
				Missed uint64            `json:"missed"`
			}
			if err := json.Unmarshal(body, &f); err != nil {
				report(err)
				return
			}
			cursor = f.Next
			c.frames.Add(1)
			c.bytes.Add(int64(len(body)))
			c.events.Add(int64(len(f.Events)))
			c.missed.Add(int64(f.Missed))
			if !sleepCtx(ctx, 50*time.Millisecond) {
				return
			}
		}
	})
	c.wg.Go(func() {
		for {
			if _, err := get(base+api.PathMetrics, nil); err != nil {
				report(err)
				return
			}
			c.scrapes.Add(1)
			if !sleepCtx(ctx, 100*time.Millisecond) {
				return
			}
		}
	})
	return c
}

// totals reads the client's counters.
func (c *slowClient) totals() slowClientTotals {
	return slowClientTotals{Frames: c.frames.Load(), Scrapes: c.scrapes.Load(), Bytes: c.bytes.Load(), Events: c.events.Load(), Missed: c.missed.Load()}
}

// stop ends the client's goroutines and returns the first error it met.
func (c *slowClient) stop() error {
	c.cancel()
	c.wg.Wait()
	select {
	case err := <-c.errs:
		return err
	default:
		return nil
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// agentSetup is where the slow client of a benchmark runs.
type agentSetup interface {
	// serve starts serving h to the client for one run; the returned
	// func ends that and adds what the client did to totals.
	serve(b *testing.B, h http.Handler) (done func(totals *slowClientTotals))
}

// inProcessClient runs the client in the benchmark's process, with a
// server per run: the client's CPU competes with the controller's.
type inProcessClient struct{}

func (inProcessClient) serve(b *testing.B, h http.Handler) func(*slowClientTotals) {
	srv := httptest.NewServer(h)
	client := startSlowClient(srv.URL, srv.Client())
	return func(totals *slowClientTotals) {
		err := client.stop()
		srv.Close()
		if err != nil {
			b.Fatalf("slow client: %v", err)
		}
		totals.add(client.totals())
	}
}

// watchRun runs one informer over a fresh list of initial pods until its
// one handler saw the list and events watch events; with an agent, a
// slow client pulls frames and scrapes /metrics all along. It returns the
// time from Run to the last callback and the CPU time this process used
// meanwhile (an in-process client's included).
func watchRun(b *testing.B, initial, events int, in engine.Instrumentation, setup agentSetup, totals *slowClientTotals) (wall, cpu time.Duration) {
	b.Helper()
	lw := benchlw.New(initial)
	inf := benchInformerWith(lw, "pods", in)
	h := benchlw.NewCounter(initial + events)
	if _, err := inf.AddNamedEventHandler("controller", h, cache.HandlerOptions{}); err != nil {
		b.Fatal(err)
	}
	var handler http.Handler
	if setup != nil {
		var err error
		if handler, err = NewHandler(serve.Options{Name: "bench", Registry: prometheus.NewRegistry()}, inf); err != nil {
			b.Fatal(err)
		}
	}
	goruntime.GC()

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var done func(*slowClientTotals)
	cpu0 := benchrun.CPUTime(b)
	start := time.Now()
	if setup != nil {
		done = setup.serve(b, handler) // from Run on, for the whole run
	}
	wg.Go(func() { inf.RunWithContext(ctx) })
	wg.Go(func() { lw.Push(events) })
	// The first snapshot of a filled cache sizes a sample of its objects,
	// once per informer. A controller pays it in its first seconds either
	// way (the informer's upkeep samples every 5 s); a run here is shorter
	// than the upkeep's first tick, so without this only the runs with the
	// agent would pay it, through the client's first frame.
	wg.Go(func() {
		for !inf.HasSynced() {
			if ctx.Err() != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
		inf.Snapshot()
	})
	<-h.Done()
	wall = time.Since(start)
	cpu = benchrun.CPUTime(b) - cpu0
	cancel()
	wg.Wait()
	if done != nil {
		done(totals)
	}
	return wall, cpu
}

// cpuTime is the user and system CPU time the process used so far.
type slowClientTotals struct {
	Frames, Scrapes, Bytes, Events, Missed int64
}

func (t *slowClientTotals) add(o slowClientTotals) {
	t.Frames, t.Scrapes, t.Bytes, t.Events, t.Missed = t.Frames+o.Frames, t.Scrapes+o.Scrapes, t.Bytes+o.Bytes, t.Events+o.Events, t.Missed+o.Missed
}

// BenchmarkWatchThroughputWithAgent: the engine's watch-throughput workload
// (1,000 listed pods, then watch events, one handler; default
// instrumentation, so no per-item events), with 100,000 events so that
// the client pulls several frames and scrapes per run, without and with
// the agent serving a slow client, run as pairs in alternating order. Reports
// ns/event of each and their ratio (goal: without/with ≥ 0.97).
// client-process is how attach runs: informtop is another process on the
// same 2 cores; client-in-process also charges the client's own work
// (HTTP, JSON decoding) to the controller's process.
func BenchmarkWatchThroughputWithAgent(b *testing.B) {
	b.Run("client-process", func(b *testing.B) {
		p := startClientProcess(b)
		watchThroughputPairs(b, p)
		t := p.stop(b)
		reportClient(b, t)
	})
	b.Run("client-in-process", func(b *testing.B) {
		var t slowClientTotals
		watchThroughputPairs(b, totalsSetup{inProcessClient{}, &t})
		reportClient(b, t)
	})
	// Every item's way through the pipeline logged (both arms): the event
	// stream then far outruns the slow client, which misses most of it and
	// is told how many, while the informer goes on at its own pace.
	b.Run("client-process-item-events", func(b *testing.B) {
		p := startClientProcess(b)
		watchThroughputPairsWith(b, p, engine.Instrumentation{ItemEvents: true})
		t := p.stop(b)
		reportClient(b, t)
	})
}

// totalsSetup adds each run's client totals to t.
type totalsSetup struct {
	inner agentSetup
	t     *slowClientTotals
}

func (s totalsSetup) serve(b *testing.B, h http.Handler) func(*slowClientTotals) {
	done := s.inner.serve(b, h)
	return func(*slowClientTotals) { done(s.t) }
}

func reportClient(b *testing.B, t slowClientTotals) {
	b.ReportMetric(float64(t.Frames)/float64(b.N), "frames/pair")
	b.ReportMetric(float64(t.Scrapes)/float64(b.N), "scrapes/pair")
	if t.Frames > 0 {
		b.ReportMetric(float64(t.Bytes)/float64(t.Frames), "B/frame")
	}
	b.ReportMetric(float64(t.Events)/float64(b.N), "events-read/pair")
	b.ReportMetric(float64(t.Missed)/float64(b.N), "events-missed/pair")
}

func watchThroughputPairs(b *testing.B, setup agentSetup) {
	watchThroughputPairsWith(b, setup, engine.Instrumentation{})
}

func watchThroughputPairsWith(b *testing.B, setup agentSetup, in engine.Instrumentation) {
	const initial, events = 1_000, 100_000
	watchRun(b, initial, events, in, nil, nil) // warm the heap, not counted
	var without, with, withoutCPU, withCPU time.Duration
	var ratios []float64
	pairs := 0
	for b.Loop() {
		var a, w, ac, wc time.Duration
		if pairs%2 == 0 {
			a, ac = watchRun(b, initial, events, in, nil, nil)
			w, wc = watchRun(b, initial, events, in, setup, nil)
		} else {
			w, wc = watchRun(b, initial, events, in, setup, nil)
			a, ac = watchRun(b, initial, events, in, nil, nil)
		}
		without, with = without+a, with+w
		withoutCPU, withCPU = withoutCPU+ac, withCPU+wc
		ratios = append(ratios, float64(a)/float64(w))
		pairs++
	}
	slices.Sort(ratios)
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(pairs*events) }
	b.ReportMetric(per(without), "ns/event-without-agent")
	b.ReportMetric(per(with), "ns/event-with-agent")
	b.ReportMetric(float64(without)/float64(with), "without/with")
	b.ReportMetric(ratios[len(ratios)/2], "without/with-median-pair")
	b.ReportMetric(per(withoutCPU), "cpu-ns/event-without-agent")
	b.ReportMetric(per(withCPU), "cpu-ns/event-with-agent")
	b.ReportMetric(float64(withoutCPU)/float64(withCPU), "cpu-without/with")
}

// BenchmarkMetricsScrape: one GET /metrics through the agent's handler
// with 50 synced, idle informers of 5 pods and 10 listeners each (4,950
// series), as text (curl) and as Prometheus 3 asks for it (OpenMetrics,
// gzip).
func BenchmarkMetricsScrape(b *testing.B) {
	const informers, listeners, objects = 50, 10, 5
	infs := make([]*engine.Informer, informers)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	b.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for i := range infs {
		lw := benchlw.New(objects)
		inf := benchInformer(lw, fmt.Sprintf("pods-%02d", i))
		for l := range listeners {
			if _, err := inf.AddNamedEventHandler(fmt.Sprintf("listener-%d", l), cache.ResourceEventHandlerFuncs{}, cache.HandlerOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		wg.Go(func() { inf.RunWithContext(ctx) })
		infs[i] = inf
	}
	for _, inf := range infs {
		waitfor.True(b, "informer "+inf.Name()+" to sync", inf.HasSynced)
	}
	// No rate bound, so that the scrape is what is measured.
	h, err := NewHandler(serve.Options{Name: "bench", Registry: prometheus.NewRegistry(), RequestsPerSecond: -1}, infs...)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		header http.Header
	}{
		{"text", nil},
		{"prometheus", http.Header{
			"Accept":          {"application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"},
			"Accept-Encoding": {"gzip"},
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, api.PathMetrics, nil)
			for k, v := range c.header {
				req.Header[k] = v
			}
			var size int
			b.ReportAllocs()
			for n := 0; b.Loop(); n++ {
				req.URL.RawQuery = uncached(n) // each scrape computed, as Prometheus's every 15 s are
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size), "body-B")
		})
	}
}

// BenchmarkServeOneInformer: the agent's own work for what the slow client
// of BenchmarkWatchThroughputWithAgent asks for, a frame and a scrape of
// one synced informer with one listener (handler only, no network).
func BenchmarkServeOneInformer(b *testing.B) {
	lw := benchlw.New(1_000)
	inf := benchInformer(lw, "pods")
	h := benchlw.NewCounter(1_000)
	if _, err := inf.AddNamedEventHandler("controller", h, cache.HandlerOptions{}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	b.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	<-h.Done()
	// No rate bound, so that the answers are what is measured.
	handler, err := NewHandler(serve.Options{Name: "bench", Registry: prometheus.NewRegistry(), RequestsPerSecond: -1}, inf)
	if err != nil {
		b.Fatal(err)
	}
	// Each frame and scrape computed, as a client's spaced ones are: a
	// frame asks for at least api.MaxEvents events (all it may get) and
	// a scrape for a query it ignores, each different from the last.
	for _, c := range []struct {
		name  string
		path  string
		query func(n int) string
	}{
		{"frame", api.PathFrame, func(n int) string { return "cursor=0&max=" + strconv.Itoa(api.MaxEvents+n) }},
		{"metrics", api.PathMetrics, uncached},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := c.path
			req := httptest.NewRequest(http.MethodGet, path, nil)
			b.ReportAllocs()
			for n := 0; b.Loop(); n++ {
				req.URL.RawQuery = c.query(n)
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
				}
			}
		})
	}
}

// BenchmarkNewHandler: what building the handler allocates, once per
// controller, for one informer; nothing more is allocated or run while
// nobody asks.
func BenchmarkNewHandler(b *testing.B) {
	inf := benchInformer(benchlw.New(0), "pods")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewHandler(serve.Options{Name: "bench", Registry: prometheus.NewRegistry()}, inf); err != nil {
			b.Fatal(err)
		}
	}
}

// uncached is a query /metrics ignores and the handler's sharing does
// not: scrape n's own, so that no scrape is answered with another's
// shared answer. It costs a scrape one small string.
func uncached(n int) string { return "bench=" + strconv.Itoa(n) }
