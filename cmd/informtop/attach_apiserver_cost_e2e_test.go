package main

// What an attach through the API server costs the API server: its CPU
// time over the same window with no attach and with one attach dashboard
// polling a controller's agent through pods/portforward (kwok as the
// node's kubelet), the two interleaved as in BenchmarkAPIServerIdleCost.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/kwoktest"
)

// BenchmarkAPIServerCostOfAttach measures the API server's CPU (utime+
// stime) over idleCostWindow with the example client-go controller (its
// agent behind a pod's port) and no attach, then with one
// `informtop attach -n NS deploy/ctrl` dashboard open on the Listeners
// view; one iteration is one such pair:
//
//	INFORMTOP_KUBE_BIN=… INFORMTOP_KWOK_BIN=… go test -run '^$' -bench APIServerCostOfAttach -benchtime 3x -timeout 40m -v ./cmd/informtop
//
// It reports both conditions' CPU seconds per window (medians) and their
// ratio over all pairs' totals. The dashboard polls a frame every 100 ms,
// each a request through the port-forward's stream, which the API server
// copies between the client and the kubelet.
func BenchmarkAPIServerCostOfAttach(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Fatal("this benchmark runs the dashboard in tmux: install it (apt-get install tmux)")
	}
	c := kubetest.Start(b) // nothing else talks to this API server
	node := kwoktest.Start(b, c)
	cs := fastClient(b, c)
	const ns = "attach-cost"
	createNamespace(b, cs, ns)
	dir := b.TempDir()
	release := filepath.Join(dir, "release")
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		b.Fatal(err)
	}
	ctl := startController(b, c.Kubeconfig, ns, release, "127.0.0.1:0")
	controllerObjects(b, cs, ns, "ctrl", "informtop", 6060)
	node.Pod(b, controllerPod(ns, "ctrl-a", "ctrl", "informtop", 6060), map[int32]string{6060: ctl.Addr()})
	bin := buildInformtop(b, dir)

	var none, one []float64
	var totalNone, totalOne float64
	run := 0
	for b.Loop() {
		idle, _ := apiserverCPU(b, c, nil)
		d := openAttachDashboard(b, bin, c.Kubeconfig, ns, filepath.Join(dir, fmt.Sprint(run)))
		open := attachedCPU(b, c, d)
		closeDashboard(d)
		none, one = append(none, idle.Seconds()), append(one, open.Seconds())
		totalNone, totalOne = totalNone+idle.Seconds(), totalOne+open.Seconds()
		run++
		b.Logf("pair %d: API server CPU over %s: no attach %.2f s, one attach %.2f s (×%.2f)",
			run, idleCostWindow, idle.Seconds(), open.Seconds(), open.Seconds()/idle.Seconds())
	}
	b.ReportMetric(median(none), "none-cpu-s")
	b.ReportMetric(median(one), "attach-cpu-s")
	b.ReportMetric(totalOne/totalNone, "ratio")
	b.Logf("over %d pairs: no attach %.2f s, one attach %.2f s: ×%.3f, +%.2f s a minute", run, totalNone, totalOne, totalOne/totalNone, (totalOne-totalNone)/float64(run))
}

// openAttachDashboard starts informtop attach on deploy/ctrl at 120×40 and
// waits until it shows the controller's listener.
func openAttachDashboard(b *testing.B, bin, kubeconfig, ns, dir string) *dashboard {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	d := &dashboard{tmux: &tmux{t: b, socket: filepath.Join(dir, "tmux.sock"), session: "attach"},
		exitFile: filepath.Join(dir, "exit-code")}
	home := filepath.Join(dir, "home")
	cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s attach --kubeconfig %s -n %s deploy/ctrl; echo $? > %s",
		home, home, bin, kubeconfig, ns, d.exitFile)
	d.run("new-session", "-d", "-s", d.session, "-x", "120", "-y", "40", cmd)
	b.Cleanup(func() { _ = exec.Command("tmux", "-S", d.socket, "kill-server").Run() })
	d.waitFor("the attach dashboard on the controller", func(s string) bool {
		return strings.Contains(s, "via API server") && strings.Contains(s, "main.(*Controller)")
	})
	return d
}

// attachedCPU is apiserverCPU for an attach dashboard, which does not read
// the server's /metrics: it checks instead that d is still attached.
func attachedCPU(b *testing.B, c *kubetest.Cluster, d *dashboard) time.Duration {
	b.Helper()
	cpu, _ := apiserverCPU(b, c, nil)
	if screen := d.capture(); !strings.Contains(screen, "via API server") || strings.Contains(screen, "disconnected") {
		b.Fatalf("the attach dashboard is not attached at the end of the window:\n%s", screen)
	}
	return cpu
}
