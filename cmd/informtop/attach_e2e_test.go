package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// attachJSON is the part of the attach report these tests read.
type attachJSON struct {
	Source    string `json:"source"`
	Synced    bool   `json:"synced"`
	Informers []struct {
		Name      string `json:"name"`
		Synced    bool   `json:"synced"`
		Listeners []struct {
			Name              string  `json:"name"`
			Pending           int     `json:"pending"`
			Synced            bool    `json:"synced"`
			InCallbackSeconds float64 `json:"inCallbackSeconds"`
			InCallback        string  `json:"inCallback"`
			InCallbackKey     string  `json:"inCallbackKey"`
		} `json:"listeners"`
	} `json:"informers"`
	Workqueues []struct {
		Name    string `json:"name"`
		Depth   int64  `json:"depth"`
		Adds    uint64 `json:"adds"`
		Retries uint64 `json:"retries"`
	} `json:"workqueues"`
}

func deployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
		},
	}
}

// reconciledKeys is the set of first submatches of re over p's log so far,
// e.g. the keys of `"reconciled NS/NAME"` lines.
func reconciledKeys(p *examplectl.Process, re *regexp.Regexp) map[string]bool {
	seen := map[string]bool{}
	for _, l := range p.Log() {
		if m := re.FindStringSubmatch(l); m != nil {
			seen[m[1]] = true
		}
	}
	return seen
}

// startController starts the test twin of examples/client-go-controller
// (examples/internal/cmd/client-go-controller) with its handler
// blocked until releaseFile exists, returning once its agent listens.
func startController(t testing.TB, kubeconfig, ns, releaseFile, agentAddr string, extra ...string) *examplectl.Process {
	t.Helper()
	args := []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--block-handler", "--release-file", releaseFile, "--agent-addr", agentAddr}
	return examplectl.Start(t, examplectl.ClientGoController, append(args, extra...)...)
}

func attachOnce(t *testing.T, bin, addr, timeout string) (int, attachJSON, string) {
	t.Helper()
	code, stdout, stderr, _ := informtop(t, bin, "attach", addr, "--once", "--json", "--timeout", timeout)
	var doc attachJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("attach --once --json printed no JSON (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
	}
	return code, doc, stderr
}

// The stalled handler in the user's own controller: informtop attach shows
// its backlog rising while it is stuck in a callback, named after the
// user's code; released, it drains to zero, every object is reconciled,
// and the controller's workqueue shows every key added and taken.
func TestAttachShowsTheStalledHandlerOfAController(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "attach-client-go"
	cs := clusterNamespace(t, c, ns)
	bg := context.Background()
	create := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := cs.AppsV1().Deployments(ns).Create(bg, deployment(ns, fmt.Sprintf("web-%02d", i)), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	create(0, 10)
	release := filepath.Join(t.TempDir(), "release")
	ctl := startController(t, c.Kubeconfig, ns, release, "127.0.0.1:0")
	bin := buildInformtop(t, t.TempDir())

	listener := func(doc attachJSON) (name string, pending int, inCallback float64) {
		if len(doc.Informers) != 1 || len(doc.Informers[0].Listeners) != 1 {
			t.Fatalf("attach report %+v, want one informer with one listener", doc)
		}
		l := doc.Informers[0].Listeners[0]
		return l.Name, l.Pending, l.InCallbackSeconds
	}
	code, doc, _ := attachOnce(t, bin, ctl.Addr(), "2s")
	name, before, inCallback := listener(doc)
	if code != 1 || doc.Source != "attach" || name != "main.(*Controller)" || inCallback <= 0 || before < 9 {
		t.Fatalf("blocked: exit %d, %+v; want exit 1, the listener main.(*Controller) in a callback with ≥9 pending", code, doc)
	}
	// Which callback it is stuck in, on which object: the example's
	// addDeployment blocks on the first deployment it is given.
	if l := doc.Informers[0].Listeners[0]; l.InCallback != "OnAdd" || !strings.HasPrefix(l.InCallbackKey, ns+"/web-") {
		t.Fatalf("blocked: in callback %q on %q, want OnAdd on one of %s/web-*", l.InCallback, l.InCallbackKey, ns)
	}
	// The controller's /metrics, as Prometheus would scrape it: informtop's
	// series, labelled as client-go labels its informer metrics.
	checkControllerMetrics(t, ctl.Addr())
	// Behind the stuck handler the workqueue starves: no key was added.
	if len(doc.Workqueues) != 1 || doc.Workqueues[0].Name != "deployments" || doc.Workqueues[0].Adds != 0 {
		t.Fatalf("blocked: workqueues %+v, want the queue deployments with no adds", doc.Workqueues)
	}
	create(10, 20)
	// Each asking is a run of attach, which paces the wait.
	waitfor.Within(t, 30*time.Second, fmt.Sprintf("the backlog to rise by 10 from %d", before), func() (bool, string) {
		_, doc, _ = attachOnce(t, bin, ctl.Addr(), "1s")
		_, pending, _ := listener(doc)
		return pending >= before+10, fmt.Sprintf("%+v", doc)
	})
	// The code it is stuck in: the example's own function, past client-go's
	// frames.
	stuck := waitAttach(t, bin, ctl.Addr(), "the stuck frame", func(_ int, doc stuckJSON) bool {
		return doc.Informers[0].Listeners[0].Frame != nil
	})
	if f := stuck.Informers[0].Listeners[0].Frame; f.Function != "main.(*Controller).misbehave" || filepath.Base(f.File) != "main.go" {
		t.Errorf("stuck in %+v; want main.(*Controller).misbehave in the example's main.go", *f)
	}
	if impl := stuck.Informers[0].Implementation; impl != source.ImplementationClientGo {
		t.Errorf("the example's informer is %q's; want client-go's", impl)
	}

	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, doc, stderr := attachOnce(t, bin, ctl.Addr(), "60s")
	if _, pending, _ := listener(doc); code != 0 || !doc.Synced || pending != 0 {
		t.Fatalf("released: exit %d, %+v, stderr %s; want synced with nothing pending", code, doc, stderr)
	}
	reconciledRE := regexp.MustCompile(`"reconciled (` + ns + `/web-\d+)"`)
	reconciled := func() map[string]bool { return reconciledKeys(ctl, reconciledRE) }
	waitfor.Every(t, 100*time.Millisecond, 30*time.Second, "20 deployments reconciled", func() (bool, string) {
		n := len(reconciled())
		return n >= 20, fmt.Sprintf("%d of 20 deployments reconciled; the controller's log:\n%s", n, strings.Join(ctl.Log(), "\n"))
	})

	// The stage after the handler: the workqueue "deployments", through
	// the agent's workqueue metrics, took every key and holds none.
	waitfor.Every(t, 100*time.Millisecond, 30*time.Second, "one queue deployments with ≥20 adds and depth 0", func() (bool, string) {
		code, doc, stderr = attachOnce(t, bin, ctl.Addr(), "10s")
		return code == 0 && len(doc.Workqueues) == 1 && doc.Workqueues[0].Name == "deployments" &&
				doc.Workqueues[0].Adds >= 20 && doc.Workqueues[0].Depth == 0,
			fmt.Sprintf("drained: exit %d, workqueues %+v, stderr %s", code, doc.Workqueues, stderr)
	})
	t.Logf("the workqueue after the drain: %+v", doc.Workqueues[0])
}

// The dashboard attached to a controller in tmux: it waits for the agent
// while the controller is not up yet, then shows the stalled handler
// under its own name; keys that only work locally say why they do not.
func TestAttachDashboardInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	c := kubetest.Shared(t)
	const ns = "attach-tui"
	cs := clusterNamespace(t, c, ns)
	bg := context.Background()
	for i := range 5 {
		if _, err := cs.AppsV1().Deployments(ns).Create(bg, deployment(ns, fmt.Sprintf("api-%d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "attach"}
	exitFile := filepath.Join(dir, "exit-code")
	tm.run("new-session", "-d", "-s", tm.session, "-x", "120", "-y", "40",
		fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s attach %s; echo $? > %s", t.TempDir(), t.TempDir(), bin, addr, exitFile))
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	tm.waitFor("the dashboard saying it cannot reach the agent yet", func(s string) bool {
		return strings.Contains(s, "attach") && strings.Contains(s, "retrying")
	})

	ctl := startController(t, c.Kubeconfig, ns, filepath.Join(t.TempDir(), "release"), addr)
	tm.keys("3")
	stalled := func(s string) bool {
		return strings.Contains(s, "main.(*Controller)") && strings.Contains(s, "STALLED") && !strings.Contains(s, "retrying")
	}
	tm.waitFor("the stalled handler under the controller's own name", stalled)

	// The controller restarts: the dashboard says it lost the agent, keeps
	// the last figures, and comes back by itself.
	_ = ctl.Stop()
	tm.waitFor("the lost connection", func(s string) bool {
		return strings.Contains(s, "disconnected") && strings.Contains(s, "retrying in") && strings.Contains(s, "main.(*Controller)")
	})
	startController(t, c.Kubeconfig, ns, filepath.Join(t.TempDir(), "release"), addr)
	tm.waitFor("the dashboard recovering by itself", stalled)
	tm.keys("space")
	tm.waitFor("pause explaining it does nothing on an attached process", func(s string) bool {
		return strings.Contains(s, "does nothing on attach")
	})
	tm.keys("q")
	tm.waitExit(exitFile)
}

// attach --verify against a controller on client-go's own informer: the
// agent cannot cut client-go's cache as of one resourceVersion, and attach
// says so in a sentence, for the informer, and exits 4 (could not compare)
// rather than report a difference it could not see.
func TestAttachVerifyOfClientGosInformerSaysWhy(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "attach-verify"
	cs := clusterNamespace(t, c, ns)
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), deployment(ns, "kept"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	release := filepath.Join(t.TempDir(), "release")
	if err := os.WriteFile(release, nil, 0o644); err != nil { // the handler never blocks
		t.Fatal(err)
	}
	ctl := startController(t, c.Kubeconfig, ns, release, "127.0.0.1:0")
	bin := buildInformtop(t, t.TempDir())
	type verifyJSON struct {
		Informers []struct {
			Name   string `json:"name"`
			Verify struct {
				Equal bool   `json:"equal"`
				Error string `json:"error"`
			} `json:"verify"`
		} `json:"informers"`
	}
	code, stdout, stderr, _ := informtop(t, bin, "attach", ctl.Addr(), "--once", "--json", "--verify", "--timeout", "30s", "--kubeconfig", c.Kubeconfig, "-n", ns)
	var doc verifyJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Informers) != 1 {
		t.Fatalf("attach --verify printed %v (exit %d):\n%s\n%s", err, code, stdout, stderr)
	}
	const why = "it is client-go's own informer, whose cache cannot be read as of one resourceVersion"
	if v := doc.Informers[0].Verify; code != 4 || v.Equal || !strings.Contains(v.Error, why) {
		t.Fatalf("attach --verify: exit %d, verify %+v, stderr %s; want exit 4 and %q", code, v, stderr, why)
	}
}

// checkControllerMetrics scrapes the example controller's agent and
// parses the text with Prometheus's parser: the stuck listener's series
// and client-go's informer_* series carry the informer's name, group,
// version and resource as client-go's informer metrics label them.
func checkControllerMetrics(t *testing.T, addr string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the controller's /metrics does not parse: %v", err)
	}
	want := map[string]map[string]string{
		"informtop_listener_pending_notifications": {"name": "deployments", "group": "apps", "version": "v1", "resource": "deployments", "listener": "main.(*Controller)"},
		// client-go's informer queue's depth is not read (no series): the
		// store's size stands for the informer's own series.
		"informtop_informer_store_objects": {"name": "deployments", "group": "apps", "version": "v1", "resource": "deployments"},
	}
	for family, labels := range want {
		mf := families[family]
		if mf == nil || len(mf.GetMetric()) != 1 {
			t.Fatalf("/metrics has %v for %s, want one series", mf, family)
		}
		got := map[string]string{}
		for _, lp := range mf.GetMetric()[0].GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		if !maps.Equal(got, labels) {
			t.Errorf("%s labels %v, want %v", family, got, labels)
		}
	}
	if v := families["informtop_listener_pending_notifications"].GetMetric()[0].GetGauge().GetValue(); v < 9 {
		t.Errorf("informtop_listener_pending_notifications = %v while the handler is blocked with ≥9 deployments behind it", v)
	}
}
