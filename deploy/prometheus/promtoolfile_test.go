package prometheus_test

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The YAML of a `promtool test rules` file.
type promtoolFile struct {
	RuleFiles          []string   `yaml:"rule_files"`
	EvaluationInterval string     `yaml:"evaluation_interval"`
	Tests              []unitTest `yaml:"tests"`
}

type unitTest struct {
	Name            string        `yaml:"name"`
	Interval        string        `yaml:"interval"`
	InputSeries     []inputSeries `yaml:"input_series"`
	AlertRuleTests  []alertTest   `yaml:"alert_rule_test,omitempty"`
	PromqlExprTests []exprTest    `yaml:"promql_expr_test,omitempty"`
}

type inputSeries struct {
	Series string `yaml:"series"`
	Values string `yaml:"values"`
}

type alertTest struct {
	EvalTime  string     `yaml:"eval_time"`
	Alertname string     `yaml:"alertname"`
	ExpAlerts []expAlert `yaml:"exp_alerts"`
}

type expAlert struct {
	ExpLabels      map[string]string `yaml:"exp_labels"`
	ExpAnnotations map[string]string `yaml:"exp_annotations"`
}

type exprTest struct {
	Expr       string      `yaml:"expr"`
	EvalTime   string      `yaml:"eval_time"`
	ExpSamples []expSample `yaml:"exp_samples"`
}

type expSample struct {
	Labels string  `yaml:"labels"`
	Value  float64 `yaml:"value"`
}

// labelSet is one series' labels, as Prometheus stores them (no empty
// values).
type labelSet map[string]string

// with returns a copy of l with more labels (an empty value removes one).
func (l labelSet) with(more map[string]string) labelSet {
	out := maps.Clone(l)
	for k, v := range more {
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// without returns a copy of l without the named labels.
func (l labelSet) without(names ...string) labelSet {
	out := maps.Clone(l)
	for _, n := range names {
		delete(out, n)
	}
	return out
}

// selector writes name{a="b",...} with sorted, quoted labels, as promtool
// reads a series.
func selector(name string, l labelSet) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, k+"="+strconv.Quote(l[k]))
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

// alertLabels are the labels an alert on series l carries: l's and the
// rule's (severity); promtool adds alertname itself.
func alertLabels(l labelSet, severity string) map[string]string {
	return l.with(map[string]string{"severity": severity})
}
