package prometheus_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v3"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/promtest"
)

// testFile is the promtool test file shipped beside the rules.
var testFile = filepath.Join("tests", "informtop.rules.test.yaml")

// Labels Prometheus itself adds to every scraped series (job, instance),
// that a Kubernetes scrape configuration usually keeps as target labels,
// that name a cluster, or that kube-state-metrics' series carry.
var targetLabels = []string{"job", "instance", "namespace", "pod", "cluster", "container"}

// The shipped `promtool test rules` file passes with the real promtool:
// every alert, firing and not, with the edge cases (a restart, a death,
// a panic before the first scrape, the default crash, two clusters).
func TestShippedRuleTestsPass(t *testing.T) {
	out, err := exec.Command(promtest.Promtool(t), "test", "rules", testFile).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules %s: %v\n%s", testFile, err, out)
	}
	t.Logf("promtool test rules: %s", strings.TrimSpace(string(out)))
	// Every alert has a test that expects it to fire.
	var f promtoolFile
	data, err := os.ReadFile(testFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	fired := map[string]bool{}
	for _, ut := range f.Tests {
		for _, a := range ut.AlertRuleTests {
			if len(a.ExpAlerts) > 0 {
				fired[a.Alertname] = true
			}
		}
	}
	for _, g := range readRules(t).Groups {
		for _, r := range g.Rules {
			if r.Alert != "" && !fired[r.Alert] {
				t.Errorf("%s has no test in %s that expects it to fire", r.Alert, testFile)
			}
		}
	}
}

// The series the rules and their shipped tests read are those of a real
// scrape, in this run, of the example controller's agent with its handler
// blocked: a renamed metric or label fails here, not in production.
func TestRulesReadTheAgentsSeries(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "rules-unit"
	namespaceWithDeployments(t, c, ns, 3)
	ctl := startController(t, c, ns, true)

	// The frame label appears once the stuck call has run 2 s.
	var fams map[string]*dto.MetricFamily
	waitfor.Every(t, 200*time.Millisecond, time.Minute, "an informtop_listener_callback_in_progress_seconds series with a frame", func() (bool, string) {
		fams = ctl.scrape(t)
		return stalledSeries(fams) != nil, fmt.Sprintf("the scrape had %v", fams["informtop_listener_callback_in_progress_seconds"])
	})
	// promtool check metrics: Prometheus' naming and typing lints, on the
	// text the agent serves with a call stuck (so a frame label too).
	check := exec.Command(promtest.Promtool(t), "check", "metrics")
	check.Stdin = bytes.NewReader(ctl.scrapeText(t))
	if out, err := check.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics on the agent's /metrics: %v\n%s", err, out)
	}
	exported := map[string]map[string]bool{} // series name → its label names
	for name, f := range fams {
		if strings.HasPrefix(name, "informtop_") {
			exported[name] = map[string]bool{}
			for _, m := range f.GetMetric() {
				for _, lp := range m.GetLabel() {
					exported[name][lp.GetName()] = true
				}
			}
		}
	}
	rules := readRules(t)
	for _, name := range metricNames(rules) {
		if exported[name] == nil {
			t.Errorf("the rules read %s, which the agent does not export", name)
		}
	}
	any := map[string]bool{}
	for _, ls := range exported {
		for l := range ls {
			any[l] = true
		}
	}
	for _, l := range labelNames(rules) {
		if !any[l] && !slices.Contains(targetLabels, l) {
			t.Errorf("the rules use the label %s, which no informtop series of the agent has", l)
		}
	}
	data, err := os.ReadFile(testFile)
	if err != nil {
		t.Fatal(err)
	}
	series := regexp.MustCompile(`series: '(informtop_[a-z_]+)\{([^}]*)\}'`)
	label := regexp.MustCompile(`([a-z_]+)="`)
	n := 0
	for _, m := range series.FindAllStringSubmatch(string(data), -1) {
		n++
		ls, ok := exported[m[1]]
		if !ok {
			t.Errorf("%s's series %s is not one the agent exports", testFile, m[1])
			continue
		}
		for _, l := range label.FindAllStringSubmatch(m[2], -1) {
			if !ls[l[1]] && !slices.Contains(targetLabels, l[1]) {
				t.Errorf("%s's series %s has the label %s, which the agent's %s has not", testFile, m[1], l[1], m[1])
			}
		}
	}
	if n == 0 {
		t.Fatalf("no informtop series in %s", testFile)
	}
	if l := stalledSeries(fams); !strings.Contains(string(data), `listener="`+l["listener"]+`"`) {
		t.Errorf("the agent names the example's listener %q; %s names it otherwise", l["listener"], testFile)
	}
}

// stalledSeries is the label set of the scraped stuck call's series (the
// one with a frame), or nil.
func stalledSeries(fams map[string]*dto.MetricFamily) labelSet {
	for _, m := range fams["informtop_listener_callback_in_progress_seconds"].GetMetric() {
		l := labelsOf(m)
		if l["frame"] != "" && m.GetGauge().GetValue() > 0 {
			return l
		}
	}
	return nil
}

func labelsOf(m *dto.Metric) labelSet {
	l := labelSet{}
	for _, lp := range m.GetLabel() {
		if lp.GetValue() != "" {
			l[lp.GetName()] = lp.GetValue()
		}
	}
	return l
}
