package prometheus_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/informtop/informtop/deploy/prometheus"
	"github.com/informtop/informtop/internal/promtest"
)

// ruleFile is a Prometheus rules file as the tests read it.
type ruleFile struct {
	Groups []ruleGroup `yaml:"groups"`
}

type ruleGroup struct {
	Name  string `yaml:"name"`
	Rules []rule `yaml:"rules"`
}

type rule struct {
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

func readRules(t *testing.T) ruleFile {
	t.Helper()
	data, err := os.ReadFile(prometheus.RulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", prometheus.RulesFile, err)
	}
	return f
}

// The PrometheusRule in the repository is what `make rules` makes of the
// plain file today, and its spec holds the very same groups.
func TestPrometheusRuleIsGenerated(t *testing.T) {
	rules, err := os.ReadFile(prometheus.RulesFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := prometheus.PrometheusRule(rules)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(prometheus.OperatorFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from what %s generates: run `make rules` and commit the result", prometheus.OperatorFile, prometheus.RulesFile)
	}
	var cr struct {
		APIVersion string   `yaml:"apiVersion"`
		Kind       string   `yaml:"kind"`
		Spec       ruleFile `yaml:"spec"`
	}
	if err := yaml.Unmarshal(got, &cr); err != nil {
		t.Fatal(err)
	}
	if cr.APIVersion != "monitoring.coreos.com/v1" || cr.Kind != "PrometheusRule" {
		t.Errorf("%s is a %s %s, want a monitoring.coreos.com/v1 PrometheusRule", prometheus.OperatorFile, cr.APIVersion, cr.Kind)
	}
	if plain := readRules(t); !reflect.DeepEqual(cr.Spec, plain) {
		t.Errorf("the PrometheusRule's groups differ from %s's", prometheus.RulesFile)
	}
}

// operatorSpecFile writes the PrometheusRule's spec, the part Prometheus
// loads from it, as a plain rules file for promtool.
func operatorSpecFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(prometheus.OperatorFile)
	if err != nil {
		t.Fatal(err)
	}
	var cr struct {
		Spec yaml.Node `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &cr); err != nil {
		t.Fatal(err)
	}
	spec, err := yaml.Marshal(&cr.Spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "prometheusrule-spec.yaml")
	if err := os.WriteFile(path, spec, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// promtool check rules, with every lint made fatal, accepts both files.
func TestPromtoolCheckRules(t *testing.T) {
	promtool := promtest.Promtool(t)
	for name, path := range map[string]string{
		prometheus.RulesFile:    prometheus.RulesFile,
		prometheus.OperatorFile: operatorSpecFile(t),
	} {
		out, err := exec.Command(promtool, "check", "rules", "--lint=all", "--lint-fatal", path).CombinedOutput()
		if err != nil {
			t.Errorf("promtool check rules %s: %v\n%s", name, err, out)
			continue
		}
		t.Logf("promtool check rules %s: %s", name, bytes.TrimSpace(out))
	}
}

// Every alert is named Informtop*, has a severity, and links to its own
// section of docs/runbook.md, which exists.
func TestAlertsLinkToTheirRunbookSection(t *testing.T) {
	runbook, err := os.ReadFile(filepath.Join("..", "..", "docs", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	var sections []string
	for _, l := range strings.Split(string(runbook), "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			sections = append(sections, strings.ToLower(h))
		}
	}
	base := prometheus.DefaultRunbook + "#"
	n := 0
	for _, g := range readRules(t).Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			n++
			if !strings.HasPrefix(r.Alert, "Informtop") || r.Labels["severity"] == "" {
				t.Errorf("alert %s: want a name starting Informtop and a severity label, have labels %v", r.Alert, r.Labels)
			}
			if want := base + strings.ToLower(r.Alert); r.Annotations["runbook_url"] != want {
				t.Errorf("alert %s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
			}
			if !slices.Contains(sections, strings.ToLower(r.Alert)) {
				t.Errorf("alert %s has no section \"## %s\" in docs/runbook.md", r.Alert, r.Alert)
			}
		}
	}
	if n == 0 {
		t.Fatal("no alert in " + prometheus.RulesFile)
	}
}

// metricNames lists the informtop_* series names the rules read (not the
// ones they record).
func metricNames(f ruleFile) []string {
	word := regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	var names []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			for _, w := range word.FindAllString(r.Expr, -1) {
				if strings.HasPrefix(w, "informtop_") && !slices.Contains(names, w) {
					names = append(names, w)
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// labelNames lists the label names the rules use in aggregations
// (by/without) and in their templates ($labels.X).
func labelNames(f ruleFile) []string {
	agg := regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	tmpl := regexp.MustCompile(`\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)`)
	var names []string
	add := func(n string) {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			for _, m := range agg.FindAllStringSubmatch(r.Expr, -1) {
				for n := range strings.SplitSeq(m[1], ",") {
					add(n)
				}
			}
			for _, a := range r.Annotations {
				for _, m := range tmpl.FindAllStringSubmatch(a, -1) {
					add(m[1])
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// `make rules RUNBOOK_URL=…` moves every alert's runbook_url to a team's
// own page, each to its section's anchor, and changes nothing else; a URL
// that is not one is a sentence.
func TestRunbookURLIsTheTeams(t *testing.T) {
	data, err := os.ReadFile(prometheus.RulesFile)
	if err != nil {
		t.Fatal(err)
	}
	out, err := prometheus.WithRunbook(data, "https://wiki.example/sre/informtop/")
	if err != nil {
		t.Fatal(err)
	}
	var got ruleFile
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := readRules(t)
	n := 0
	for i, g := range got.Groups {
		for j, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			n++
			if link := "https://wiki.example/sre/informtop#" + strings.ToLower(r.Alert); r.Annotations["runbook_url"] != link {
				t.Errorf("%s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], link)
			}
			r.Annotations["runbook_url"] = want.Groups[i].Rules[j].Annotations["runbook_url"]
		}
	}
	if n == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("the rules changed beyond their runbook_url (%d alerts)", n)
	}
	if bytes.Contains(out, []byte(prometheus.DefaultRunbook)) {
		t.Errorf("the team's file still names %s (its comments say where runbook_url points)", prometheus.DefaultRunbook)
	}
	path := filepath.Join(t.TempDir(), prometheus.RulesFile)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtest.Promtool(t), "check", "rules", "--lint=all", "--lint-fatal", path).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules on the rewritten file: %v\n%s", err, out)
	}
	for _, bad := range []string{"wiki.example/runbook", "ftp://wiki.example/r", "https://wiki.example/r#x", "https://"} {
		if _, err := prometheus.WithRunbook(data, bad); err == nil || !strings.Contains(err.Error(), "RUNBOOK_URL") {
			t.Errorf("RUNBOOK_URL %q: %v, want a sentence naming RUNBOOK_URL", bad, err)
		}
	}
}
