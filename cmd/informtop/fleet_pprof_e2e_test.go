package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/promtest"
)

// A controller without the agent, scraped by a real Prometheus for its
// workqueue_* series only: informtop fleet lists it (pprof: true), and
// Enter in the dashboard attaches to its goroutine dumps, naming the
// handler held on a labelled ConfigMap and the function it is in.
func TestFleetListsAndAttachesAControllerWithoutTheAgent(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "fleet-pprof"
	cs := clusterNamespace(t, c, ns)
	dir := t.TempDir()
	ctl := examplectl.Start(t, examplectl.PprofController, "--kubeconfig", c.Kubeconfig, "--namespace", ns, "--release-file", filepath.Join(dir, "never"))
	addr := strings.TrimPrefix(ctl.Addr(), "http://")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held", Labels: map[string]string{"informtop.example/block": "true"}}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	prom := promtest.Start(t, promtest.Config{Targets: []promtest.Target{{Job: "controllers", Addr: addr}}})
	bin := buildInformtop(t, dir)

	type fleetDoc struct {
		Processes []struct {
			Name  string `json:"name"`
			Pprof bool   `json:"pprof"`
			Up    bool   `json:"up"`
		} `json:"processes"`
	}
	var doc fleetDoc
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, 2*time.Minute, true, func(context.Context) (bool, error) {
		code, stdout, stderr, _ := informtop(t, bin, "fleet", "--prometheus", prom.URL(), "--selector", `job="controllers"`, "--once", "--json", "--timeout", "30s")
		last = fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr)
		doc = fleetDoc{}
		return json.Unmarshal([]byte(stdout), &doc) == nil && len(doc.Processes) == 1, nil
	})
	if err != nil {
		t.Fatalf("fleet never listed the controller without the agent: %v; the last: %s", err, last)
	}
	if p := doc.Processes[0]; !p.Pprof || !p.Up {
		t.Errorf("process %+v; want it up and marked pprof (no agent)", p)
	}

	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "fleet-pprof"}
	home := t.TempDir()
	tm.run("new-session", "-d", "-s", tm.session, "-x", "160", "-y", "40",
		fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s KUBECONFIG=%s %s fleet --prometheus %s --selector 'job=\"controllers\"'",
			home, home, filepath.Join(dir, "none"), bin, prom.URL()))
	t.Cleanup(func() { tm.run("kill-server") })
	tm.waitFor("the process without the agent", func(s string) bool {
		return strings.Contains(s, "no agent: enter reads its goroutine dumps") && strings.Contains(s, addr)
	})
	tm.keys("Enter")
	tm.keys("3")
	screen := tm.waitFor("its stuck handler, from its goroutine dumps", func(s string) bool {
		return strings.Contains(s, "through its goroutine dumps") && strings.Contains(s, "main.run") && strings.Contains(s, "main.holdWhileLabelled")
	})
	if testing.Verbose() {
		t.Logf("after Enter:\n%s", screen)
	}
}
