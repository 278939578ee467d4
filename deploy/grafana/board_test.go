package grafana

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
)

// checkedIn is the dashboard file users import.
const checkedIn = "informtop.json"

func TestCheckedInDashboardIsCurrent(t *testing.T) {
	want, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(checkedIn)
	if err != nil {
		t.Fatalf("reading %s: %v; run `make dashboard` to write it", checkedIn, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from what Build makes (%s): run `make dashboard` and commit the file", checkedIn, firstDiff(got, want))
	}
}

// firstDiff names the first line where the checked-in file and the
// generated one part.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, Build makes %q", i+1, strings.TrimSpace(gl), strings.TrimSpace(wl))
		}
	}
	return "they differ"
}

// load parses the checked-in file with the SDK's own types, strictly: an
// unknown field, a wrong type or a missing required field fails.
func load(t *testing.T) dashboard.Dashboard {
	t.Helper()
	plugins.RegisterDefaultPlugins()
	raw, err := os.ReadFile(checkedIn)
	if err != nil {
		t.Fatal(err)
	}
	var strict dashboard.Dashboard
	if err := strict.UnmarshalJSONStrict(raw); !noErrors(err) {
		t.Fatalf("%s does not parse as a Grafana dashboard: %v", checkedIn, err)
	}
	// The strict pass only checks: in SDK v0.0.22 it drops every panel
	// that parsed (PanelOrRowPanel returns on the empty error list before
	// keeping the panel). The plain pass keeps them.
	var d dashboard.Dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s does not parse as a Grafana dashboard: %v", checkedIn, err)
	}
	return d
}

// noErrors reports whether err holds no error. The SDK's strict
// unmarshalers return their error list even when it is empty (a nil
// cog.BuildErrors in a non-nil error), so err != nil alone says nothing.
func noErrors(err error) bool {
	var list cog.BuildErrors
	if errors.As(err, &list) {
		return len(list) == 0
	}
	return err == nil
}

func TestCheckedInDashboardImportsAnywhere(t *testing.T) {
	d := load(t)
	if d.Id != nil {
		t.Errorf("the dashboard has id %d: an id belongs to one Grafana and breaks import into another", *d.Id)
	}
	if d.Uid == nil || *d.Uid != UID {
		t.Errorf("uid is %v, want %q so that re-importing replaces the dashboard", d.Uid, UID)
	}
	if want := dashboard.NewDashboard().SchemaVersion; d.SchemaVersion != want {
		t.Errorf("schemaVersion %d, the SDK writes %d", d.SchemaVersion, want)
	}
	vars := map[string]dashboard.VariableModel{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	for _, name := range []string{"datasource", "cluster", "job", "namespace", "pod", "instance", "informer", "listener", "workqueue"} {
		if _, ok := vars[name]; !ok {
			t.Errorf("no variable %q", name)
		}
	}
	if ds := vars["datasource"]; ds.Query == nil || ds.Query.String == nil || *ds.Query.String != "prometheus" {
		t.Errorf("the datasource variable does not list Prometheus data sources: %+v", ds.Query)
	}
	for _, name := range []string{"informer", "listener"} {
		if v := vars[name]; v.Multi == nil || !*v.Multi || v.IncludeAll == nil || !*v.IncludeAll {
			t.Errorf("variable %q is not multi-valued with All", name)
		}
	}

	ids := map[uint32]string{}
	var titles []string
	for _, p := range panels(d) {
		titles = append(titles, p.title)
		if prev, dup := ids[p.id]; dup {
			t.Errorf("panels %q and %q share id %d", prev, p.title, p.id)
		}
		ids[p.id] = p.title
		if p.row {
			continue
		}
		if p.panel.Description == nil || *p.panel.Description == "" {
			t.Errorf("panel %q has no description", p.title)
		}
		if !usesVariable(p.panel.Datasource) {
			t.Errorf("panel %q names data source %s instead of ${datasource}", p.title, uid(p.panel.Datasource))
		}
		if !hasUnits(p.panel) {
			t.Errorf("panel %q has no unit", p.title)
		}
		if len(p.panel.Targets) == 0 {
			t.Errorf("panel %q has no query", p.title)
		}
		for _, q := range p.panel.Targets {
			pq, ok := q.(*prometheus.Dataquery)
			if !ok {
				t.Errorf("panel %q has a %T query, not Prometheus'", p.title, q)
				continue
			}
			if !usesVariable(pq.Datasource) {
				t.Errorf("a query of panel %q names data source %s instead of ${datasource}", p.title, uid(pq.Datasource))
			}
		}
	}
	// What a user sees first: the worst listeners, then each row.
	for _, want := range []string{"Listeners, worst first", "Callback in progress", "Stuck in", "Backlog", "Oldest pending",
		"Informers", "Handler calls per second", "Workqueue depth"} {
		if !slices.Contains(titles, want) {
			t.Errorf("no panel %q among %q", want, titles)
		}
	}
}

func usesVariable(ds *common.DataSourceRef) bool {
	return uid(ds) == `"${datasource}"`
}

// uid is a data source's uid, quoted, or "none".
func uid(ds *common.DataSourceRef) string {
	if ds == nil || ds.Uid == nil {
		return "none"
	}
	return strconv.Quote(*ds.Uid)
}

// hasUnits reports whether a panel's values have a unit: its default, or
// one on every override (a table's value columns each have theirs).
func hasUnits(p dashboard.Panel) bool {
	fc := p.FieldConfig
	if fc == nil {
		return false
	}
	if fc.Defaults.Unit != nil {
		return true
	}
	if len(fc.Overrides) == 0 {
		return false
	}
	for _, o := range fc.Overrides {
		if !slices.ContainsFunc(o.Properties, func(v dashboard.DynamicConfigValue) bool { return v.Id == "unit" && v.Value != "" }) {
			return false
		}
	}
	return true
}

// The file keeps PromQL's > < & as typed, and means what encoding/json's
// escaped form means.
func TestUnescapeHTMLKeepsTheMeaning(t *testing.T) {
	in := []byte(`{"expr":"a \u003e 1 \u0026 b \u003c 2","literal":"\\u003e stays","quote":"\"\\\u003e"}`)
	got := unescapeHTML(in)
	if want := `{"expr":"a > 1 & b < 2","literal":"\\u003e stays","quote":"\"\\>"}`; string(got) != want {
		t.Fatalf("unescapeHTML = %s, want %s", got, want)
	}
	var before, after map[string]string
	if err := json.Unmarshal(in, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &after); err != nil {
		t.Fatalf("unescaped JSON does not parse: %v", err)
	}
	if !maps.Equal(before, after) {
		t.Errorf("the values changed: %q became %q", before, after)
	}
}

// A process is its cluster, job and instance: every aggregation that
// keeps processes apart keeps all three, so two clusters' controllers
// at alike addresses are never one, and every selector of a process's
// series honours the cluster variable.
func TestProcessesAreToldApartByCluster(t *testing.T) {
	by := regexp.MustCompile(`\bby \(([^)]*)\)`)
	n := 0
	for _, q := range queries(t, load(t)) {
		if strings.HasPrefix(q.where, "variable") {
			continue // a variable lists one label's values
		}
		for _, m := range by.FindAllStringSubmatch(q.expr, -1) {
			labels := strings.Split(strings.ReplaceAll(m[1], " ", ""), ",")
			if !slices.Contains(labels, "instance") {
				continue
			}
			n++
			if !slices.Contains(labels, "cluster") || !slices.Contains(labels, "job") {
				t.Errorf("%s: by (%s) keeps instances apart but not their cluster and job", q.where, m[1])
			}
		}
		if strings.Contains(q.expr, `instance=~"$instance"`) && !strings.Contains(q.expr, `cluster=~"$cluster"`) {
			t.Errorf("%s: %s selects by instance but not by cluster", q.where, q.expr)
		}
	}
	if n == 0 {
		t.Fatal("no query counts processes")
	}
}
