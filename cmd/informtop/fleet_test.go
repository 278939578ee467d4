package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/informtop/informtop/agent/source"
)

// Bad input to informtop fleet is a sentence naming the flag, exit 2,
// before anything is contacted; a Prometheus where nothing listens is
// said at once, exit 2 too.
func TestFleetBadInputIsASentence(t *testing.T) {
	t.Setenv(envPrometheusURL, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"fleet", "--once"}, "no Prometheus to ask: give --prometheus URL"},
		{[]string{"fleet", "--once", "--prometheus", "prometheus:9090"}, "Prometheus speaks http or https"},
		{[]string{"fleet", "--once", "--prometheus", "http://p:9090", "--selector", "namespace=shop"}, `--selector "namespace=shop": the value of namespace is not in double quotes`},
		{[]string{"fleet", "--once", "--prometheus", "http://p:9090", "--cert-file", "c.pem"}, "--cert-file and --key-file go together"},
		{[]string{"fleet", "--once", "--prometheus", "http://p:9090", "--bearer-token-file", "/nonexistent/token"}, "--bearer-token-file /nonexistent/token does not exist: check the path"},
		{[]string{"fleet", "--once", "--prometheus", "http://p:9090", "--agent-label", "no such"}, `--agent-label "no such" is not a label name`},
		{[]string{"fleet", "--once", "--prometheus", "http://p:9090", "--cluster-label", "listener"}, `--cluster-label "listener" is not a target label name`},
		{[]string{"fleet", "--json", "--prometheus", "http://p:9090"}, "--json goes with --once"},
		{[]string{"fleet", "--prometheus", "http://p:9090"}, "stdout is not a terminal"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// A port nothing listens on: taken, then freed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	code, _, stderr := runCLI(t, "fleet", "--once", "--prometheus", "http://"+addr, "--timeout", "1m")
	if code != 2 || !strings.Contains(stderr, "nothing listens at http://"+addr+" (connection refused): is Prometheus running there?") {
		t.Errorf("nothing listening: exit %d, stderr %q", code, stderr)
	}
}

// The agents' token goes only where --agent-direct allows: never to an
// address merely because a scraped target's labels name it.
func TestAgentTokenGoesOnlyWhereAllowed(t *testing.T) {
	rules, err := parseDirect([]string{"10.0.0.0/8", "ctrl.example:6060", "metrics.example"})
	if err != nil {
		t.Fatal(err)
	}
	fa := fleetAttach{direct: rules}
	for addr, want := range map[string]bool{
		"10.1.2.3:6060":                         true,
		"http://10.1.2.3:8080/debug/informtop/": true,
		"ctrl.example:6060":                     true,
		"ctrl.example:6061":                     false,
		"metrics.example:9999":                  true,
		"127.0.0.1:6060":                        false,
		"evil.example:6060":                     false,
		"11.0.0.1:6060":                         false,
	} {
		if got := fa.allows(addr); got != want {
			t.Errorf("allows(%q) = %t, want %t", addr, got, want)
		}
	}
	if (fleetAttach{}).allows("10.1.2.3:6060") {
		t.Error("with no --agent-direct, an address was allowed the token")
	}
	if _, err := parseDirect([]string{"10.0.0.0/99"}); err == nil || !strings.Contains(err.Error(), "--agent-direct") {
		t.Errorf("a bad CIDR: %v; want a sentence naming --agent-direct", err)
	}
}

// Enter reaches a process through its own cluster's context: the one
// --cluster-context maps its cluster to, never the current one when its
// cluster is not mapped (the same pod name may live in every cluster).
func TestFleetEnterChoosesTheContextByCluster(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
current-context: local
clusters:
- {name: eu, cluster: {server: "https://eu.example:6443"}}
- {name: us, cluster: {server: "https://us.example:6443"}}
- {name: local, cluster: {server: "https://127.0.0.1:6443"}}
users: [{name: u, user: {}}]
contexts:
- {name: prod-eu, context: {cluster: eu, user: u}}
- {name: prod-us, context: {cluster: us, user: u}}
- {name: local, context: {cluster: local, user: u}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &kubeconfig
	fa := fleetAttach{kubeFlags: flags, clusters: map[string]string{"eu-1": "prod-eu", "us-1": "prod-us"}}
	pod := map[string]string{"namespace": "shop", "pod": "orders-0"}
	for cluster, want := range map[string]string{"eu-1": "https://eu.example:6443", "us-1": "https://us.example:6443"} {
		f, err := fa.kubeFlagsFor(source.Process{Cluster: cluster, Labels: pod})
		if err != nil {
			t.Fatalf("cluster %s: %v", cluster, err)
		}
		cfg, err := f.ToRESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Host != want {
			t.Errorf("cluster %s is reached at %s, want %s", cluster, cfg.Host, want)
		}
	}
	if _, err := fa.kubeFlagsFor(source.Process{Cluster: "ap-1", Labels: pod}); err == nil || !strings.Contains(err.Error(), "--cluster-context does not map") {
		t.Errorf("an unmapped cluster: %v, want a sentence naming --cluster-context", err)
	}
	if f, err := (fleetAttach{kubeFlags: flags}).kubeFlagsFor(source.Process{Cluster: "eu-1", Labels: pod}); err != nil || f != flags {
		t.Errorf("without --cluster-context: %v; want the kubeconfig's own context", err)
	}
}

// --fail-on-stall on a fleet: the series say neither which callback nor
// which key, so the sentence says "a callback" and no key, names the
// frame, and lists the stalls longest first.
func TestFleetFailOnStallSaysWhatItKnowsLongestFirst(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	stuck := func(name string, d time.Duration, frame *source.StackFrame) source.Informer {
		return source.Informer{Name: name, Started: true, Synced: true, Taken: now, Listeners: []source.Listener{{
			Name: "main.(*Controller)", InCallback: source.CallbackUnknown, InCallbackSince: now.Add(-d), Frame: frame}}}
	}
	frame := &source.StackFrame{Function: "main.(*Controller).misbehave", File: "main.go", Line: 266}
	f := source.Frame{Snapshots: []source.Informer{
		stuck("eu-1/shop/a · deployments", 40*time.Second, nil),
		stuck("eu-1/shop/b · deployments", 4*time.Minute+11*time.Second, frame),
		stuck("us-1/shop/c · deployments", 2*time.Minute, frame),
	}}
	lines := stalledLonger(f, 30*time.Second, now)
	want := []string{
		"eu-1/shop/b · deployments: handler main.(*Controller) has been in a callback for 4m11s, in main.(*Controller).misbehave (main.go:266), longer than --fail-on-stall 30s (exit 5)",
		"us-1/shop/c · deployments: handler main.(*Controller) has been in a callback for 2m0s, in main.(*Controller).misbehave (main.go:266), longer than --fail-on-stall 30s (exit 5)",
		"eu-1/shop/a · deployments: handler main.(*Controller) has been in a callback for 40s, longer than --fail-on-stall 30s (exit 5)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
