package prometheus_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/deploy/prometheus"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/promtest"
)

// scrapeDir holds the rollout manifests: a plain Prometheus configuration,
// a ServiceMonitor, a PodMonitor and the token's Secret.
var scrapeDir = filepath.Join("..", "scrape")

// The plain scrape configuration passes `promtool check config`, its
// token file and the rules it loads included: the shipped file names the
// token where a Prometheus pod mounts it, so the test points that path,
// and the rules' relative path, at files of its own.
func TestScrapeConfigPassesPromtool(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(scrapeDir, "prometheus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("a-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const mounted, rules = "/etc/prometheus/secrets/informtop-metrics-token/token", "../prometheus/informtop.rules.yaml"
	if !bytes.Contains(data, []byte(mounted)) || !bytes.Contains(data, []byte(rules)) {
		t.Fatalf("prometheus.yaml no longer names %s and %s: update the test", mounted, rules)
	}
	data = bytes.ReplaceAll(data, []byte(mounted), []byte(token))
	data = bytes.ReplaceAll(data, []byte(rules), []byte(mustAbs(t, prometheus.RulesFile)))
	path := filepath.Join(dir, "prometheus.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtest.Promtool(t), "check", "config", "--lint=all", "--lint-fatal", path).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
	// The relabelling keeps what the alerts and the fleet name a process by.
	var cfg struct {
		ScrapeConfigs []struct {
			RelabelConfigs []struct {
				SourceLabels []string `yaml:"source_labels"`
				TargetLabel  string   `yaml:"target_label"`
			} `yaml:"relabel_configs"`
		} `yaml:"scrape_configs"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil || len(cfg.ScrapeConfigs) != 1 {
		t.Fatalf("prometheus.yaml: %v", err)
	}
	kept := map[string]string{}
	for _, r := range cfg.ScrapeConfigs[0].RelabelConfigs {
		if r.TargetLabel != "" && len(r.SourceLabels) == 1 {
			kept[r.TargetLabel] = r.SourceLabels[0]
		}
	}
	if kept["namespace"] != "__meta_kubernetes_namespace" || kept["pod"] != "__meta_kubernetes_pod_name" {
		t.Errorf("the relabelling keeps %v; want namespace and pod from Kubernetes service discovery", kept)
	}
}

// The ServiceMonitor, PodMonitor and Secret, the example Deployment, and
// the PrometheusRule, are accepted by a real kube-apiserver with
// prometheus-operator's CRDs installed, under strict field validation: a
// field the operator's schema does not have (a typo, a field of another
// version) would be refused, as the last apply checks. What was stored is
// what the files say.
func TestOperatorObjectsMatchTheCRDs(t *testing.T) {
	c := kubetest.Shared(t)
	kubectl := func(stdin []byte, args ...string) (string, error) {
		cmd := exec.Command(c.Kubectl(), append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(stdin []byte, args ...string) string {
		t.Helper()
		out, err := kubectl(stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	crds := filepath.Join("testdata", "prometheus-operator-crds")
	must(nil, "apply", "--server-side", "-f", crds)
	// kubectl wait fails at once, rather than waits, on a CRD the API
	// server has not given a status yet: ask again until it has.
	waitfor.Every(t, 200*time.Millisecond, time.Minute, "the prometheus-operator CRDs to be established", func() (bool, string) {
		out, err := kubectl(nil, "wait", "--for=condition=Established", "--timeout=30s",
			"crd/servicemonitors.monitoring.coreos.com", "crd/podmonitors.monitoring.coreos.com", "crd/prometheusrules.monitoring.coreos.com")
		return err == nil, out
	})

	const ns = "informtop-monitoring"
	for _, n := range []string{ns, "my-controller"} {
		if out, err := kubectl(nil, "create", "namespace", n); err != nil && !strings.Contains(out, "AlreadyExists") {
			t.Fatalf("kubectl create namespace %s: %v\n%s", n, err, out)
		}
	}
	for _, a := range []struct{ ns, file string }{
		{ns, filepath.Join(scrapeDir, "secret.yaml")}, {ns, filepath.Join(scrapeDir, "podmonitor.yaml")}, {ns, prometheus.OperatorFile},
		// The ServiceMonitor's example names its controller's namespace.
		{"my-controller", filepath.Join(scrapeDir, "secret.yaml")}, {"my-controller", filepath.Join(scrapeDir, "servicemonitor.yaml")},
		{"my-controller", filepath.Join(scrapeDir, "deployment.yaml")},
	} {
		must(nil, "apply", "--validate=strict", "-n", a.ns, "-f", a.file)
	}
	// Stored as written: nothing pruned by the schema.
	for _, c := range []struct{ args []string }{
		{[]string{"-n", ns, "get", "podmonitor", "informtop", "-o", "jsonpath={.spec.podMetricsEndpoints[0].authorization.credentials.name} {.spec.podMetricsEndpoints[0].port} {.spec.jobLabel}"}},
		{[]string{"-n", "my-controller", "get", "servicemonitor", "informtop", "-o", "jsonpath={.spec.endpoints[0].authorization.credentials.name} {.spec.endpoints[0].port} {.spec.jobLabel}"}},
	} {
		if got := must(nil, c.args...); got != "informtop-metrics-token informtop app.kubernetes.io/name" {
			t.Errorf("kubectl %s: %q, want the token, the port and the job label as the file has them", strings.Join(c.args, " "), got)
		}
	}
	if got := must(nil, "-n", ns, "get", "prometheusrule", "informtop", "-o", "jsonpath={.spec.groups[0].rules[0].alert}"); got != "InformtopListenerStalled" {
		t.Errorf("the PrometheusRule's first alert is %q", got)
	}
	// Strict validation is on: an unknown field is refused.
	bad := []byte("apiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: typo}\nspec:\n  selector: {}\n  podMetricsEndpoints:\n    - port: informtop\n      bearerTokenFile: /x\n")
	if out, err := kubectl(bad, "apply", "--validate=strict", "-n", ns, "-f", "-"); err == nil || !strings.Contains(out, "bearerTokenFile") {
		t.Errorf("a PodMonitor with a field v1 does not have was accepted: %v\n%s", err, out)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
