package grafana

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metricsql"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
)

// titled is a panel or a row with its title, as a walk of the dashboard
// yields them.
type titled struct {
	title string
	id    uint32
	row   bool
	panel dashboard.Panel
}

// panels lists the dashboard's rows and panels, those inside collapsed
// rows included.
func panels(d dashboard.Dashboard) []titled {
	var out []titled
	add := func(p dashboard.Panel) {
		var id uint32
		if p.Id != nil {
			id = *p.Id
		}
		var title string
		if p.Title != nil {
			title = *p.Title
		}
		out = append(out, titled{title: title, id: id, panel: p})
	}
	for _, p := range d.Panels {
		switch {
		case p.Panel != nil:
			add(*p.Panel)
		case p.RowPanel != nil:
			var title string
			if p.RowPanel.Title != nil {
				title = *p.RowPanel.Title
			}
			out = append(out, titled{title: title, id: p.RowPanel.Id, row: true})
			for _, inner := range p.RowPanel.Panels {
				add(inner)
			}
		}
	}
	return out
}

// promQL is one query of the dashboard and where it is.
type promQL struct {
	where, expr string
}

// labelValuesQuery is a Prometheus variable's query: label_values(selector, label).
var labelValuesQuery = regexp.MustCompile(`^label_values\((.+), *([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// queries lists every PromQL expression of the checked-in dashboard: the
// panels' queries and the selectors of the variables' label_values.
// Grafana's interval variables become durations, as Grafana does before
// sending; label variables sit inside quoted matchers and stay.
func queries(t *testing.T, d dashboard.Dashboard) []promQL {
	t.Helper()
	intervals := strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1h")
	var out []promQL
	for _, p := range panels(d) {
		for i, q := range p.panel.Targets {
			if pq, ok := q.(*prometheus.Dataquery); ok && pq.Expr != "" {
				out = append(out, promQL{fmt.Sprintf("panel %q query %d", p.title, i+1), intervals.Replace(pq.Expr)})
			}
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		if v.Query == nil || v.Query.String == nil {
			t.Errorf("variable %q has no query", v.Name)
			continue
		}
		m := labelValuesQuery.FindStringSubmatch(*v.Query.String)
		if m == nil {
			t.Errorf("variable %q: %q is not label_values(selector, label)", v.Name, *v.Query.String)
			continue
		}
		out = append(out, promQL{fmt.Sprintf("variable %q", v.Name), m[1]})
		// The label must be one the selector's metric has.
		out = append(out, promQL{fmt.Sprintf("variable %q label", v.Name), fmt.Sprintf("count by (%s) (%s)", m[2], m[1])})
	}
	return out
}

// promqlFuncs are the functions and aggregations this dashboard may use:
// PromQL's, so an extension only MetricsQL (the parser here) accepts
// fails the test instead of failing in Prometheus.
var promqlFuncs = []string{
	"rate", "increase", "irate", "delta", "max_over_time", "min_over_time", "avg_over_time", "changes", "resets",
	"vector", "scalar", "abs", "clamp_min", "time", "timestamp", "label_replace", "sort_desc", "topk", "histogram_quantile",
	"sum", "count", "max", "min", "avg",
}

// rangeFuncs take a range vector, which PromQL requires to be written
// with its window ([1m]); MetricsQL would fill one in.
var rangeFuncs = []string{"rate", "increase", "irate", "delta", "max_over_time", "min_over_time", "avg_over_time", "changes", "resets"}

// grafanaVariable is $name or ${name} in a string.
var grafanaVariable = regexp.MustCompile(`\$\{?[a-zA-Z_]+\}?`)

func TestQueriesAreValidPromQLOverExportedMetrics(t *testing.T) {
	metrics := exported(t)
	d := load(t)
	qs := queries(t, d)
	if len(qs) < 30 {
		t.Fatalf("found only %d queries in %s", len(qs), checkedIn)
	}
	used := map[string]bool{}
	for _, q := range qs {
		if v := grafanaVariable.FindAllString(strings.Join(regexp.MustCompile(`"[^"]*"`).Split(q.expr, -1), ""), -1); len(v) > 0 {
			t.Errorf("%s: %v outside a quoted matcher, where Grafana's substitution could break the query: %s", q.where, v, q.expr)
		}
		e, err := metricsql.Parse(q.expr)
		if err != nil {
			t.Errorf("%s does not parse as PromQL: %v\n%s", q.where, err, q.expr)
			continue
		}
		names := 0
		metricsql.VisitAll(e, func(n metricsql.Expr) {
			switch n := n.(type) {
			case *metricsql.FuncExpr:
				if !slices.Contains(promqlFuncs, n.Name) {
					t.Errorf("%s calls %s, not a PromQL function this dashboard expects: %s", q.where, n.Name, q.expr)
				}
				if slices.Contains(rangeFuncs, n.Name) {
					if len(n.Args) != 1 {
						t.Errorf("%s: %s takes one range vector: %s", q.where, n.Name, q.expr)
					} else if r, ok := n.Args[0].(*metricsql.RollupExpr); !ok || r.Window == nil {
						t.Errorf("%s: %s needs a range with its window, as [1m]: %s", q.where, n.Name, q.expr)
					}
				}
			case *metricsql.AggrFuncExpr:
				if !slices.Contains(promqlFuncs, n.Name) {
					t.Errorf("%s aggregates with %s, not a PromQL aggregation this dashboard expects: %s", q.where, n.Name, q.expr)
				}
				for _, l := range n.Modifier.Args {
					checkLabelOnAll(t, q, l, e, metrics)
				}
			case *metricsql.MetricExpr:
				names++
				alternatives, filters := metricOf(n)
				for name := range strings.SplitSeq(alternatives, "|") {
					labels, ok := metrics[name]
					if !ok {
						t.Errorf("%s reads %q, which the agent does not export (%s): %s", q.where, name, collectorFile, q.expr)
						return
					}
					used[name] = true
					for _, f := range filters {
						if !slices.Contains(labels, f) {
							t.Errorf("%s filters %s on label %q, which it does not have (it has %v): %s", q.where, name, f, labels, q.expr)
						}
					}
				}
			}
		})
		if names == 0 {
			t.Errorf("%s reads no metric: %s", q.where, q.expr)
		}
	}
	for name := range metrics {
		if !used[name] && strings.HasPrefix(name, "informtop_") {
			t.Logf("the agent exports %s; no panel shows it", name)
		}
	}
}

// metricOf is a selector's metric name (names separated by | when it
// matches __name__ against alternatives) and the labels it filters on.
func metricOf(m *metricsql.MetricExpr) (string, []string) {
	var name string
	var labels []string
	for _, group := range m.LabelFilterss {
		for _, f := range group {
			if f.Label == "__name__" {
				name = f.Value
				continue
			}
			labels = append(labels, f.Label)
		}
	}
	return name, labels
}

// checkLabelOnAll fails when an aggregation groups by a label that no
// metric of the query has: the grouping would silently fold every series
// into one.
func checkLabelOnAll(t *testing.T, q promQL, label string, e metricsql.Expr, metrics map[string][]string) {
	t.Helper()
	found := false
	metricsql.VisitAll(e, func(n metricsql.Expr) {
		if m, ok := n.(*metricsql.MetricExpr); ok {
			names, _ := metricOf(m)
			for name := range strings.SplitSeq(names, "|") {
				if slices.Contains(metrics[name], label) {
					found = true
				}
			}
		}
	})
	if !found {
		t.Errorf("%s groups by %q, a label none of its metrics has: %s", q.where, label, q.expr)
	}
}

// Every graph's legend names the process as the alerts do (cluster, pod)
// and as Prometheus does outside Kubernetes (instance), so the line an
// alert points at can be found among several controllers.
func TestLegendsNameTheProcessAsTheAlertsDo(t *testing.T) {
	d := load(t)
	n := 0
	for _, p := range panels(d) {
		for i, q := range p.panel.Targets {
			pq, ok := q.(*prometheus.Dataquery)
			if !ok || pq.LegendFormat == nil || *pq.LegendFormat == "" {
				continue
			}
			n++
			for _, l := range []string{"{{cluster}}", "{{pod}}", "{{instance}}"} {
				if !strings.Contains(*pq.LegendFormat, l) {
					t.Errorf("panel %q query %d: legend %q lacks %s", p.title, i+1, *pq.LegendFormat, l)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no legends")
	}
}
