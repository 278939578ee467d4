package grafana

import (
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metricsql"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// A controller-runtime manager serves its controllers' queues as
// controller-runtime's own workqueue_* series (labels name and
// controller; its histograms' buckets reach 1000 s), with none of the
// agent's informtop_workqueue_*. Scraped as Prometheus would, with every
// variable at All: each workqueue_* arm of the Workqueues row selects
// them, every panel of the row reads at least one, and a quantile
// panel's description names the last bucket of each provider, so a wait
// read at its cap is not taken for the real one.
func TestWorkqueueRowReadsControllerRuntimesQueues(t *testing.T) {
	q := priorityqueue.New[string]("configmap")
	t.Cleanup(q.ShutDown)
	q.Add("shop/a")
	if k, _, shutdown := q.GetWithPriority(); !shutdown {
		q.Done(k)
	}
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, "shop/b")
	srv := httptest.NewServer(promhttp.HandlerFor(ctrlmetrics.Registry, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)
	all := scrape(t, srv.URL+"/metrics")

	var lastBucket float64
	for _, s := range all {
		if s["__name__"] == "workqueue_queue_duration_seconds_bucket" && s["le"] != "+Inf" {
			le, err := strconv.ParseFloat(s["le"], 64)
			if err != nil {
				t.Fatal(err)
			}
			lastBucket = max(lastBucket, le)
		}
	}
	if lastBucket == 0 {
		t.Fatalf("controller-runtime's queue served no workqueue_queue_duration_seconds buckets: %v", all)
	}

	d := load(t)
	var allValues []string
	for _, v := range d.Templating.List {
		allValues = append(allValues, "$"+v.Name, ".*")
	}
	atAll := strings.NewReplacer(allValues...)
	intervals := strings.NewReplacer("$__rate_interval", "1m", "$__range", "1h")
	inRow := false
	rowPanels := 0
	for _, p := range panels(d) {
		if p.row {
			inRow = p.title == "Workqueues"
			continue
		}
		if !inRow {
			continue
		}
		rowPanels++
		read := 0
		for _, target := range p.panel.Targets {
			pq, ok := target.(*prometheus.Dataquery)
			if !ok {
				continue
			}
			e, err := metricsql.Parse(intervals.Replace(atAll.Replace(pq.Expr)))
			if err != nil {
				t.Fatalf("panel %q: %v", p.title, err)
			}
			metricsql.VisitAll(e, func(n metricsql.Expr) {
				m, ok := n.(*metricsql.MetricExpr)
				if !ok {
					return
				}
				if name, _ := metricOf(m); !strings.HasPrefix(name, "workqueue_") {
					return
				}
				if len(matching(t, m, all)) == 0 {
					t.Errorf("panel %q: %s selects none of controller-runtime's queue series", p.title, m.AppendString(nil))
				}
				read++
			})
		}
		if read == 0 {
			t.Errorf("panel %q reads none of controller-runtime's workqueue_* series", p.title)
		}
		if strings.Contains(p.title, "duration") {
			desc := ""
			if p.panel.Description != nil {
				desc = *p.panel.Description
			}
			for _, last := range []string{strconv.FormatFloat(lastBucket, 'f', -1, 64) + " s", "10 s"} {
				if !strings.Contains(desc, last) {
					t.Errorf("panel %q's description does not name %s, where a provider's buckets end: %q", p.title, last, desc)
				}
			}
		}
	}
	if rowPanels == 0 {
		t.Fatal("no Workqueues row")
	}
	// The Workqueue variable lists the queue too.
	for _, v := range d.Templating.List {
		if v.Name == "workqueue" && v.Query != nil && v.Query.String != nil {
			m := labelValuesQuery.FindStringSubmatch(*v.Query.String)
			e, err := metricsql.Parse(atAll.Replace(m[1]))
			if err != nil {
				t.Fatal(err)
			}
			if got := matching(t, e.(*metricsql.MetricExpr), all); !slices.ContainsFunc(got, func(s series) bool { return s["name"] == "configmap" }) {
				t.Errorf("the Workqueue variable does not list controller-runtime's queue configmap")
			}
		}
	}
}
