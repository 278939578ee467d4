package engineserve

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/engine"
)

// What scrapers cost the controller: the latency of a controller's event
// handler (push to callback) while 50 local processes' worth of scrapers
// hammer the agent in a loop, as the security review measured it.

const (
	envBenchScrapers = "INFORMTOP_BENCH_SCRAPERS" // "N URL": the scraper process
	spin             = "spin"                     // the URL of a scraper process that only burns CPU
	scrapeObjects    = 5_000
	scrapers         = 50
	changeEvery      = 5 * time.Millisecond // 200 changes/s
	scrapeWindow     = 2 * time.Second
)

// configMapLW lists scrapeObjects configmaps, then serves the one watch
// that push fills.
type configMapLW struct {
	list  *corev1.ConfigMapList
	once  sync.Once
	watch *watch.FakeWatcher
	ready chan struct{}
}

func newConfigMapLW(n int) *configMapLW {
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(n)}}
	list.Items = make([]corev1.ConfigMap, n)
	for i := range list.Items {
		c := &list.Items[i]
		c.Namespace, c.Name = "ns-"+strconv.Itoa(i%20), "cm-"+strconv.Itoa(i)
		c.ResourceVersion = strconv.Itoa(i + 1)
		c.Labels = map[string]string{"app": "app-" + strconv.Itoa(i%50)}
		c.Data = map[string]string{"config.yaml": strings.Repeat("key: value\n", 20)}
	}
	return &configMapLW{list: list, watch: watch.NewFakeWithChanSize(1024, false), ready: make(chan struct{})}
}

func (lw *configMapLW) IsWatchListSemanticsUnSupported() bool { return true }

func (lw *configMapLW) List(metav1.ListOptions) (runtime.Object, error) { return lw.list, nil }

func (lw *configMapLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	lw.once.Do(func() { close(lw.ready) })
	return lw.watch, nil
}

// latencyHandler is a controller's handler doing a little work (hashing
// the object's data) that records, per update, the time from push to
// callback.
type latencyHandler struct {
	initial int
	pushed  []time.Time // by change number, written before the push
	mu      sync.Mutex
	seen    []time.Duration // by change number; 0 until seen
	handled atomic.Int64
}

func (h *latencyHandler) OnAdd(any, bool) {}
func (h *latencyHandler) OnDelete(any)    {}
func (h *latencyHandler) OnUpdate(_, obj any) {
	now := time.Now()
	cm := obj.(*corev1.ConfigMap)
	rv, _ := strconv.Atoi(cm.ResourceVersion)
	i := rv - h.initial - 1
	d := sha256.New()
	for k, v := range cm.Data {
		d.Write([]byte(k))
		d.Write([]byte(v))
	}
	_ = d.Sum(nil)
	h.mu.Lock()
	h.seen[i] = now.Sub(h.pushed[i])
	h.mu.Unlock()
	h.handled.Add(1)
}

// BenchmarkHandlerLatencyUnderScrapers: an informer of 5,000 configmaps
// whose handler is fed 200 changes/s, with the agent (a registry with the
// Go and process collectors, as a controller's) served on loopback, in
// windows of 2 s taken in turns: no scraper; 50 concurrent scrapers of
// cut?keys=true; 50 of /metrics; 50 of the generation (one number: what
// any HTTP flood costs); a process only burning CPU. The scrapers run in
// a process of their own, at normal priority (any local user: the
// attack) and at nice 19 (what the agent's own work costs the controller
// when the scrapers' CPU does not compete). Reports each window kind's
// p50, p99 and max handler latency, what the controller's process
// allocated, what the scrapers got, and p99 over the no-scraper p99
// (goal ≤ 2).
func BenchmarkHandlerLatencyUnderScrapers(b *testing.B) {
	for _, nice := range []string{"0", "19"} {
		b.Run("scrapers-nice-"+nice, func(b *testing.B) { handlerLatencyUnderScrapers(b, nice) })
	}
}

func handlerLatencyUnderScrapers(b *testing.B, nice string) {
	lw := newConfigMapLW(scrapeObjects)
	inf := engine.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, engine.Options{
		Name: "configmaps", Resource: "configmaps",
		Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
	})
	const maxChanges = 1 << 20
	h := &latencyHandler{initial: scrapeObjects, pushed: make([]time.Time, maxChanges), seen: make([]time.Duration, maxChanges)}
	if _, err := inf.AddNamedEventHandler("controller", h, cache.HandlerOptions{}); err != nil {
		b.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	handler, err := NewHandler(serve.Options{Name: "bench", Registry: reg}, inf)
	if err != nil {
		b.Fatal(err)
	}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r)
		served.Add(1)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	b.Cleanup(func() {
		cancel()
		wg.Wait()
		srv.Close()
	})
	wg.Go(func() { inf.RunWithContext(ctx) })
	for !inf.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	inf.Snapshot() // the first snapshot's memory sample, not in any window

	// pushWindow pushes changes at a steady rate for one window and
	// returns the change numbers it pushed.
	next := 0
	pushWindow := func() (from, to int) {
		from = next
		tick := time.NewTicker(changeEvery)
		defer tick.Stop()
		end := time.Now().Add(scrapeWindow)
		for now := range tick.C {
			if now.After(end) || next == maxChanges {
				break
			}
			c := lw.list.Items[next%scrapeObjects].DeepCopy()
			c.ResourceVersion = strconv.Itoa(scrapeObjects + next + 1)
			h.pushed[next] = time.Now()
			lw.watch.Modify(c)
			next++
		}
		for h.handled.Load() < int64(next) {
			time.Sleep(time.Millisecond)
		}
		return from, next
	}
	<-lw.ready

	kinds := []struct{ name, path string }{
		{"none", ""},
		{"cut", api.PathCut + "?informer=configmaps&keys=true"},
		{"metrics", api.PathMetrics},
		// The floor: 50 scrapers of one number read without a lock cost
		// what any HTTP flood costs, whatever the bounds of expensive answers.
		{"generation", api.PathGeneration + "?informer=configmaps"},
		// And a local process that only burns CPU (scrapers goroutines
		// spinning, no HTTP): what any neighbour on the machine costs.
		{"cpu-hog", spin},
	}
	lat := make(map[string][]time.Duration)
	allocs := make(map[string]uint64) // bytes the controller's process allocated
	got := make(map[string]scraperTotals)
	turn := 0
	for b.Loop() {
		for k := range kinds {
			kind := kinds[(k+turn)%len(kinds)]
			var p *scraperProcess
			switch kind.path {
			case "":
			case spin:
				p = startScrapers(b, nice, spin)
			default:
				p = startScrapers(b, nice, srv.URL+kind.path)
				for at := served.Load(); served.Load() < at+scrapers; {
					time.Sleep(time.Millisecond) // the scrapers are at work
				}
			}
			var m0, m1 goruntime.MemStats
			goruntime.ReadMemStats(&m0)
			from, to := pushWindow()
			goruntime.ReadMemStats(&m1)
			allocs[kind.name] += m1.TotalAlloc - m0.TotalAlloc
			if p != nil {
				t := p.stop(b)
				g := got[kind.name]
				g.OK, g.Busy, g.Other = g.OK+t.OK, g.Busy+t.Busy, g.Other+t.Other
				got[kind.name] = g
			}
			h.mu.Lock()
			lat[kind.name] = append(lat[kind.name], h.seen[from:to]...)
			h.mu.Unlock()
		}
		turn++
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	var p99none time.Duration
	for _, kind := range kinds {
		l := lat[kind.name]
		slices.Sort(l)
		p50, p99, maxL := l[len(l)/2], l[len(l)*99/100], l[len(l)-1]
		b.ReportMetric(ms(p50), "p50-ms-"+kind.name)
		b.ReportMetric(ms(p99), "p99-ms-"+kind.name)
		b.ReportMetric(ms(maxL), "max-ms-"+kind.name)
		b.ReportMetric(float64(allocs[kind.name])/float64(b.N)/scrapeWindow.Seconds()/(1<<20), "alloc-MiB/s-"+kind.name)
		if kind.name == "none" {
			p99none = p99
			continue
		}
		b.ReportMetric(float64(p99)/float64(p99none), "p99-ratio-"+kind.name)
		if kind.path == spin {
			continue
		}
		g := got[kind.name]
		b.ReportMetric(float64(g.OK)/float64(b.N)/scrapeWindow.Seconds(), "ok/s-"+kind.name)
		b.ReportMetric(float64(g.Busy)/float64(b.N)/scrapeWindow.Seconds(), "503/s-"+kind.name)
		if g.Other > 0 {
			b.Errorf("%s: %d scrapes answered neither 200 nor 503", kind.name, g.Other)
		}
	}
}

// scraperTotals is what the scraper process got.
type scraperTotals struct{ OK, Busy, Other int64 }

// scraperProcess is the test binary run again as N scrapers of one URL
// (TestMain), until its stdin closes.
type scraperProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout strings.Builder
	stderr strings.Builder
}

func startScrapers(b *testing.B, nice, url string) *scraperProcess {
	p := &scraperProcess{cmd: exec.Command("nice", "-n", nice, os.Args[0], "-test.run=^$", "-test.bench=^$")}
	p.cmd.Env = append(os.Environ(), envBenchScrapers+"="+strconv.Itoa(scrapers)+" "+url)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return p
}

func (p *scraperProcess) stop(b *testing.B) scraperTotals {
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		b.Fatalf("scraper process: %v: %s", err, p.stderr.String())
	}
	var t scraperTotals
	if err := json.Unmarshal([]byte(p.stdout.String()), &t); err != nil {
		b.Fatalf("scraper process printed %q: %v", p.stdout.String(), err)
	}
	return t
}

// runScraperProcess is the scraper process's whole life: arg is "N URL".
func runScraperProcess(arg string) int {
	ns, url, _ := strings.Cut(arg, " ")
	n, err := strconv.Atoi(ns)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	var ok, busy, other atomic.Int64
	var wg sync.WaitGroup
	for range n {
		if url == spin {
			wg.Go(func() {
				for x := 0; ctx.Err() == nil; x++ {
					for range 1 << 16 {
						x = x*31 + 7
					}
				}
			})
			continue
		}
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				resp, err := client.Do(req)
				if err != nil {
					continue // cancelled at the end
				}
				_, _ = io.Copy(io.Discard, bufio.NewReader(resp.Body))
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusServiceUnavailable:
					busy.Add(1)
				default:
					other.Add(1)
				}
			}
		})
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	cancel()
	wg.Wait()
	if err := json.NewEncoder(os.Stdout).Encode(scraperTotals{ok.Load(), busy.Load(), other.Load()}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
