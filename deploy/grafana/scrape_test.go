package grafana

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metricsql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
	clientworkqueue "k8s.io/client-go/util/workqueue"

	"github.com/informtop/informtop/agent"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
)

// series is one scraped sample's labels, __name__ included.
type series map[string]string

// fakeSource is client-go's fake ListerWatcher, telling the reflector to
// LIST rather than stream the initial list, which it cannot.
type fakeSource struct{ *fcache.FakeControllerSource }

func (fakeSource) IsWatchListSemanticsUnSupported() bool { return true }

// holdUntil is the controller's code a handler gets stuck in.
func holdUntil(release <-chan struct{}) { <-release }

// stuckController runs what a controller runs: client-go's own informer
// built through the agent, a handler feeding a named workqueue and stuck
// on one object, and the agent's /metrics as Prometheus scrapes it. It
// returns the scrape URL.
func stuckController(t *testing.T) string {
	t.Helper()
	src := fakeSource{fcache.NewFakeControllerSource()}
	t.Cleanup(src.Shutdown)
	set := agent.NewSet()
	inf := agent.NewInformer(set)(src, &corev1.ConfigMap{}, 0, cache.Indexers{})
	queues := agent.NewWorkqueueMetrics()
	q := clientworkqueue.NewTypedRateLimitingQueueWithConfig(clientworkqueue.DefaultTypedControllerRateLimiter[string](),
		clientworkqueue.TypedRateLimitingQueueConfig[string]{Name: "configmaps", MetricsProvider: queues})
	t.Cleanup(q.ShutDown)

	release := make(chan struct{})
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			q.Add(cm.Namespace + "/" + cm.Name)
			if cm.Labels["hold"] == "yes" {
				holdUntil(release)
			}
		},
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	// Cleanups run last first: the handler is released before the
	// informer above is waited for.
	t.Cleanup(func() { close(release) })
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}

	h, err := agent.NewHandler(set, agent.Options{Registry: prometheus.NewRegistry(), Workqueues: queues})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	src.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "held", Labels: map[string]string{"hold": "yes"}}})
	for i := range 3 {
		src.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("behind-%d", i)}})
	}
	return srv.URL + "/metrics"
}

// scrape reads the agent's /metrics and labels each sample as a
// Prometheus scrape job would (job, instance).
func scrape(t *testing.T, metricsURL string) []series {
	t.Helper()
	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", metricsURL, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the agent's /metrics: %v", err)
	}
	u, err := url.Parse(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	var out []series
	for name, f := range families {
		for _, m := range f.GetMetric() {
			s := series{"__name__": name, "job": "controller", "instance": u.Host}
			for _, l := range m.GetLabel() {
				s[l.GetName()] = l.GetValue()
			}
			if h := m.GetHistogram(); h != nil {
				// Prometheus stores a histogram as these series.
				for _, suffix := range []string{"_sum", "_count"} {
					o := maps.Clone(s)
					o["__name__"] = name + suffix
					out = append(out, o)
				}
				for _, b := range h.GetBucket() {
					o := maps.Clone(s)
					o["__name__"], o["le"] = name+"_bucket", strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)
					out = append(out, o)
				}
				continue
			}
			out = append(out, s)
		}
	}
	return out
}

// stuckFrame finds the callback gauge naming the code a call is stuck in.
func stuckFrame(all []series) (series, bool) {
	for _, s := range all {
		if s["__name__"] == mInCallback && strings.Contains(s["frame"], "holdUntil") {
			return s, true
		}
	}
	return nil, false
}

// A controller with one handler stuck, scraped as Prometheus would: with
// every variable at All, each selector of each query of the checked-in
// dashboard finds series, and the "Stuck in" table's finds the stuck
// function, so no panel a user opens is blank for want of a label.
func TestDashboardSelectorsFindARealAgentsSeries(t *testing.T) {
	d := load(t)
	metricsURL := stuckController(t)

	var all []series
	waitfor.Every(t, 100*time.Millisecond, waitfor.Timeout, fmt.Sprintf("a %s series naming the stuck function (a call is stalled after %v)", mInCallback, source.StallAfter), func() (bool, string) {
		all = scrape(t, metricsURL)
		_, ok := stuckFrame(all)
		return ok, fmt.Sprintf("the scrape had %d series", len(all))
	})

	// Every variable at All is ".*", as the dashboard sends it.
	var allValues []string
	for _, v := range d.Templating.List {
		allValues = append(allValues, "$"+v.Name, ".*")
	}
	atAll := strings.NewReplacer(allValues...)
	stuckSelectors := 0
	for _, q := range queries(t, d) {
		e, err := metricsql.Parse(atAll.Replace(q.expr))
		if err != nil {
			t.Fatalf("%s: %v", q.where, err) // the PromQL test says more
		}
		metricsql.VisitAll(e, func(n metricsql.Expr) {
			m, ok := n.(*metricsql.MetricExpr)
			if !ok {
				return
			}
			if name, _ := metricOf(m); strings.HasPrefix(name, "workqueue_") {
				// client-go's own workqueue metrics, the other arm of an
				// or: a controller without the agent's provider serves
				// them, this one does not.
				return
			}
			matched := matching(t, m, all)
			if len(matched) == 0 {
				t.Errorf("%s: %s selects none of the agent's %d series", q.where, m.AppendString(nil), len(all))
			}
			if strings.Contains(string(m.AppendString(nil)), `frame!=""`) {
				stuckSelectors++
				if len(matched) != 1 || !strings.Contains(matched[0]["frame"], "holdUntil") {
					t.Errorf("%s selects %v; want the one call stuck in holdUntil", q.where, matched)
				}
			}
		})
	}
	if stuckSelectors == 0 {
		t.Error(`no query selects the stuck calls (frame!="")`)
	}
}

// matching are the series a selector picks.
func matching(t *testing.T, m *metricsql.MetricExpr, all []series) []series {
	t.Helper()
	var out []series
	for _, s := range all {
		for _, group := range m.LabelFilterss {
			if matchesAll(t, group, s) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// matchesAll applies PromQL's matchers: a missing label is "", regular
// expressions are anchored.
func matchesAll(t *testing.T, filters []metricsql.LabelFilter, s series) bool {
	t.Helper()
	for _, f := range filters {
		v := s[f.Label]
		ok := v == f.Value
		if f.IsRegexp {
			re, err := regexp.Compile("^(?:" + f.Value + ")$")
			if err != nil {
				t.Fatalf("matcher %s=~%q: %v", f.Label, f.Value, err)
			}
			ok = re.MatchString(v)
		}
		if ok == f.IsNegative {
			return false
		}
	}
	return true
}
