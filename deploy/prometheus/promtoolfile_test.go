package prometheus_test

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
