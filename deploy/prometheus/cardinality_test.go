package prometheus_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/promtest"
)

// Series the agent exports per informer, per listener and per workqueue,
// as docs/fleet.md states them.
const seriesPerInformer, seriesPerListener, seriesPerWorkqueue = 9, 10, 31

// The figures docs/fleet.md gives are those of a real scrape of the
// example controller's agent (one informer, one listener, one workqueue).
func TestSeriesPerInformerListenerAndWorkqueue(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "rules-cardinality"
	namespaceWithDeployments(t, c, ns, 2)
	ctl := startController(t, c, ns, false)
	informers, listeners, queues := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var perInformer, perListener, perQueue int
	for name, f := range ctl.scrape(t) {
		if !strings.HasPrefix(name, "informtop_") {
			continue
		}
		for _, m := range f.GetMetric() {
			l := labelsOf(m)
			switch {
			case strings.HasPrefix(name, "informtop_workqueue_"):
				perQueue++
				if h := m.GetHistogram(); h != nil {
					// Stored as one series per bucket (+Inf too), _sum and _count.
					perQueue += len(h.GetBucket()) + 1
				}
				queues[l["name"]] = true
			case l["listener"] != "":
				perListener++
				listeners[l["name"]+"/"+l["listener"]] = true
			default:
				perInformer++
				informers[l["name"]] = true
			}
		}
	}
	if len(informers) != 1 || len(listeners) != 1 || len(queues) != 1 {
		t.Fatalf("the example exports %d informers, %d listeners, %d workqueues; want one of each", len(informers), len(listeners), len(queues))
	}
	t.Logf("series: %d per informer, %d per listener, %d per workqueue", perInformer, perListener, perQueue)
	if perInformer != seriesPerInformer || perListener != seriesPerListener || perQueue != seriesPerWorkqueue {
		t.Errorf("series per informer, listener, workqueue: %d, %d, %d; docs/fleet.md says %d, %d, %d: update it",
			perInformer, perListener, perQueue, seriesPerInformer, seriesPerListener, seriesPerWorkqueue)
	}
	doc, err := os.ReadFile("../../docs/fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d series per informer, %d per listener and %d per workqueue", seriesPerInformer, seriesPerListener, seriesPerWorkqueue); !strings.Contains(string(doc), want) {
		t.Errorf("docs/fleet.md does not say %q", want)
	}
}

// Fleet size of the cardinality measurement.
const fleetControllers, fleetInformers, fleetListeners = 100, 20, 3

// What 100 controllers × 20 informers × 3 listeners (and one workqueue per
// informer) cost a real Prometheus: head series and resident memory, against
// an idle Prometheus started in the same run. Minutes long, so off unless
// INFORMTOP_CARDINALITY=1; the figures go to docs/fleet.md by hand.
func TestFleetCardinality(t *testing.T) {
	if os.Getenv("INFORMTOP_CARDINALITY") != "1" {
		t.Skip("set INFORMTOP_CARDINALITY=1 to measure what a fleet of 100 controllers costs a Prometheus (takes about 4 minutes)")
	}
	scrape, settle := 15*time.Second, 4*time.Minute
	if d, err := time.ParseDuration(os.Getenv("INFORMTOP_CARDINALITY_FOR")); err == nil {
		settle = d
	}
	var targets []promtest.Target
	for i := range fleetControllers {
		// The workqueues' durations as the agent's provider exports them.
		h, err := serve.NewHandler(fleetSource(i), serve.Options{}, serve.Extras{Workqueues: true, WorkqueueHistograms: fleetHistograms(i)})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		targets = append(targets, promtest.Target{
			Job: fmt.Sprintf("controller-%03d", i%10), Addr: strings.TrimPrefix(srv.URL, "http://"),
			Labels: map[string]string{"namespace": fmt.Sprintf("team-%d", i%10), "pod": fmt.Sprintf("controller-%03d-0", i)},
		})
	}
	rules := []string{"informtop.rules.yaml"}
	idle := promtest.Start(t, promtest.Config{RuleFiles: rules, ScrapeInterval: scrape, EvalInterval: scrape})
	fleet := promtest.Start(t, promtest.Config{Targets: targets, RuleFiles: rules, ScrapeInterval: scrape, EvalInterval: scrape})

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client, err := api.NewClient(api.Config{Address: fleet.URL(), RoundTripper: tr})
	if err != nil {
		t.Fatal(err)
	}
	q := promv1.NewAPI(client)
	began := time.Now()
	waitfor.Every(t, time.Second, 2*time.Minute, fmt.Sprintf("Prometheus to scrape the %d agents", fleetControllers), func() (bool, string) {
		v, _, err := q.Query(context.Background(), `count(up == 1)`, time.Now())
		vec, ok := v.(model.Vector)
		return err == nil && ok && len(vec) == 1 && int(vec[0].Value) == fleetControllers, fmt.Sprintf("count(up == 1) answered %v, %v", v, err)
	})
	time.Sleep(settle) // a measurement over time, not a synchronisation
	var informtopSeries float64
	if v, _, err := q.Query(context.Background(), `count({__name__=~"informtop_.*"})`, time.Now()); err == nil {
		if vec, ok := v.(model.Vector); ok && len(vec) == 1 {
			informtopSeries = float64(vec[0].Value)
		}
	}
	// The fake informers are informtop's engine's, with queue, memory and
	// buffer series client-go's own informer lacks: 12 and 11.
	const engineSeriesPerInformer, engineSeriesPerListener = seriesPerInformer + 3, seriesPerListener + 1
	want := fleetControllers * (fleetInformers*engineSeriesPerInformer + fleetInformers*fleetListeners*engineSeriesPerListener + fleetInformers*seriesPerWorkqueue)
	if int(informtopSeries) != want {
		t.Errorf("Prometheus holds %v informtop series, want %d", informtopSeries, want)
	}
	i, f := selfMetrics(t, tr, idle.URL()), selfMetrics(t, tr, fleet.URL())
	mib := func(b float64) float64 { return b / (1 << 20) }
	t.Logf("fleet of %d controllers × %d informers × %d listeners (+%d workqueues each), scraped every %s for %s:",
		fleetControllers, fleetInformers, fleetListeners, fleetInformers, scrape, time.Since(began).Round(time.Second))
	t.Logf("  informtop series: %v (%d per controller)", informtopSeries, want/fleetControllers)
	t.Logf("  head series: idle %v, fleet %v", i["prometheus_tsdb_head_series"], f["prometheus_tsdb_head_series"])
	t.Logf("  RSS: idle %.0f MiB, fleet %.0f MiB (+%.0f MiB, %.1f KiB per series)", mib(i["process_resident_memory_bytes"]), mib(f["process_resident_memory_bytes"]),
		mib(f["process_resident_memory_bytes"]-i["process_resident_memory_bytes"]),
		(f["process_resident_memory_bytes"]-i["process_resident_memory_bytes"])/1024/f["prometheus_tsdb_head_series"])
	t.Logf("  Go heap in use: idle %.0f MiB, fleet %.0f MiB", mib(i["go_memstats_heap_inuse_bytes"]), mib(f["go_memstats_heap_inuse_bytes"]))
	t.Logf("  head chunks: idle %v, fleet %v", i["prometheus_tsdb_head_chunks"], f["prometheus_tsdb_head_chunks"])
}

// fleetSource is controller n: 20 synced informers of 3 idle listeners
// each and one workqueue per informer, with values that differ per
// controller (as counters of real processes do).
func fleetSource(n int) *sourcetest.Fake {
	var infs []source.Informer
	var queues []source.Workqueue
	for i := range fleetInformers {
		inf := source.Informer{
			Name: fmt.Sprintf("resource%02d", i), Resource: fmt.Sprintf("resource%02ds", i), Started: true, Synced: true,
			Reflector: source.Reflector{Lists: 1, ListPages: uint64(1 + n%5), Watches: uint64(1 + i%3)},
			Store:     source.Cache{Objects: 100 * (n + i)},
		}
		for l := range fleetListeners {
			inf.Listeners = append(inf.Listeners, source.Listener{
				Name: fmt.Sprintf("main.(*Controller%d)", l), Synced: true, Capacity: 1024,
				Delivered: source.Delivered{Add: uint64(100 * (n + i))},
			})
		}
		infs = append(infs, inf)
		queues = append(queues, source.Workqueue{Name: inf.Name, Adds: uint64(100 * (n + i))})
	}
	return sourcetest.New(sourcetest.Config{Kind: "fleet", Title: fmt.Sprintf("controller %d", n), Frames: [][]source.Informer{infs}, Workqueues: queues})
}

// fleetHistograms are controller n's workqueues' duration histograms:
// one observation per add, in a bucket that differs per queue.
func fleetHistograms(n int) func() []serve.WorkqueueHistograms {
	bounds := prometheus.ExponentialBuckets(10e-9, 10, 10)
	return func() []serve.WorkqueueHistograms {
		var out []serve.WorkqueueHistograms
		for i := range fleetInformers {
			count := uint64(100 * (n + i))
			h := serve.Histogram{Count: count, Sum: float64(count) * bounds[i%len(bounds)], Buckets: map[float64]uint64{}}
			for j, le := range bounds {
				if j >= i%len(bounds) {
					h.Buckets[le] = count
				} else {
					h.Buckets[le] = 0
				}
			}
			out = append(out, serve.WorkqueueHistograms{Name: fmt.Sprintf("resource%02d", i), QueueDuration: h, WorkDuration: h})
		}
		return out
	}
}

// selfMetrics reads a Prometheus server's own /metrics (gauges only).
func selfMetrics(t *testing.T, tr *http.Transport, url string) map[string]float64 {
	t.Helper()
	resp, err := (&http.Client{Transport: tr}).Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		if ms := f.GetMetric(); len(ms) == 1 && ms[0].GetGauge() != nil {
			out[name] = ms[0].GetGauge().GetValue()
		}
	}
	return out
}
