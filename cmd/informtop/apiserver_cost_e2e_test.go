package main

// What one idle informtop dashboard costs the API server: the real
// kube-apiserver's CPU time over the same window with no informtop and
// with one dashboard open on a namespace, the two interleaved so a drift
// in the machine's load falls on both. docs/benchmarks.md ("Cost to the
// API server") has the figures and how to rerun them.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/internal/kubetest"
)

const (
	// idleCostWindow is how long each condition is measured: two reads
	// of /metrics at the default --server-metrics-every of 30 s, and a
	// watch bookmark.
	idleCostWindow = 60 * time.Second
	// idleCostSettle comes before every window: the dashboard's start
	// (discovery, the access check, the initial list) or its exit
	// (watches closing) is not what is measured.
	idleCostSettle = 10 * time.Second
	// idleCostPods is what the watched namespace holds.
	idleCostPods = 100
)

// BenchmarkAPIServerIdleCost measures the API server's CPU (utime+stime
// of its process) over idleCostWindow with no informtop, then with one
// informtop dashboard idle on the Pipeline view (the view that reads the
// server's /metrics) in tmux, on a cluster of its own; one iteration is
// one such pair, so -benchtime 8x runs eight:
//
//	INFORMTOP_KUBE_BIN=… go test -run '^$' -bench APIServerIdleCost -benchtime 8x -timeout 40m -v ./cmd/informtop
//
// It reports both conditions' CPU seconds per window (medians) and the
// ratio one dashboard / none over all pairs' totals; its goal is at most
// 1.2. The API server's own idle work varies by a few tenths of a second
// from one minute to the next, so the pairs' ratios spread: the more
// pairs, the surer the total.
func BenchmarkAPIServerIdleCost(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Fatal("this benchmark runs the dashboard in tmux: install it (apt-get install tmux)")
	}
	c := kubetest.Start(b) // nothing else talks to this API server
	cs := fastClient(b, c)
	const ns = "idle-cost"
	createNamespace(b, cs, ns)
	createObjects(b, cs, podExample, ns, "pod", idleCostPods)
	dir := b.TempDir()
	bin := buildInformtop(b, dir)

	var none, one []float64
	var totalNone, totalOne float64
	run := 0
	for b.Loop() {
		idle, _ := apiserverCPU(b, c, nil)
		d := openDashboard(b, bin, c.Kubeconfig, ns, filepath.Join(dir, fmt.Sprint(run)))
		open, reads := apiserverCPU(b, c, d)
		closeDashboard(d)
		none, one = append(none, idle.Seconds()), append(one, open.Seconds())
		totalNone, totalOne = totalNone+idle.Seconds(), totalOne+open.Seconds()
		run++
		b.Logf("pair %d: API server CPU over %s: none %.2f s, one dashboard %.2f s (×%.2f; it read /metrics %d times)",
			run, idleCostWindow, idle.Seconds(), open.Seconds(), open.Seconds()/idle.Seconds(), reads)
	}
	r := totalOne / totalNone
	b.ReportMetric(median(none), "none-cpu-s")
	b.ReportMetric(median(one), "one-cpu-s")
	b.ReportMetric(r, "ratio")
	b.Logf("over %d pairs: none %.2f s, one dashboard %.2f s: ×%.3f (goal ≤ 1.2)", run, totalNone, totalOne, r)
}

// podExample makes the pods the dashboard watches (nothing schedules or
// runs them: they only sit in the cache).
var podExample = costExample{short: "pods", create: func(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	_, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	return err
}}

// apiserverCPU settles, then returns the CPU time the API server used over
// the window and, with d set, how often the dashboard read /metrics in
// it; the dashboard must then still be up and synced at the end.
func apiserverCPU(b *testing.B, c *kubetest.Cluster, d *dashboard) (time.Duration, int) {
	b.Helper()
	settle := time.NewTimer(idleCostSettle)
	<-settle.C
	pid := c.APIServerPID()
	before, readsBefore := cpuTime(pid), d.metricsReads()
	window := time.NewTimer(idleCostWindow)
	<-window.C
	after, reads := cpuTime(pid), d.metricsReads()-readsBefore
	if before < 0 || after < 0 || c.APIServerPID() != pid {
		b.Fatalf("the API server's CPU time could not be read from /proc/%d/stat", pid)
	}
	if d == nil {
		return after - before, 0
	}
	// The window holds what makes the dashboard cost the server: its
	// reads of /metrics, every --server-metrics-every (30 s).
	if reads < 1 {
		b.Fatalf("the dashboard read the API server's /metrics %d times in %s; want one every 30 s", reads, idleCostWindow)
	}
	if screen := d.capture(); !strings.Contains(screen, "✓ synced") {
		b.Fatalf("the dashboard is not up and synced at the end of the window:\n%s", screen)
	}
	return after - before, reads
}

// dashboard is informtop running in a tmux server of its own.
type dashboard struct {
	*tmux
	exitFile string
	log      string // client-go's log at -v 6: a line for every request
}

// metricsReads counts the dashboard's requests for /metrics so far; 0
// with no dashboard.
func (d *dashboard) metricsReads() int {
	if d == nil {
		return 0
	}
	data, err := os.ReadFile(d.log)
	if err != nil {
		d.t.Fatalf("the dashboard's log: %v", err)
	}
	return len(metricsRead.FindAll(data, -1))
}

// metricsRead is the log line of one read of /metrics (client-go's
// round-tripper logs every request at -v 6).
var metricsRead = regexp.MustCompile(`"Response" verb="GET" url="[^"]*/metrics(\?[^"]*)?"`)

// openDashboard starts informtop on ns at 120×40 and waits until its
// informer has synced; its tmux server stops when b ends, if not before.
func openDashboard(b *testing.B, bin, kubeconfig, ns, dir string) *dashboard {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	d := &dashboard{tmux: &tmux{t: b, socket: filepath.Join(dir, "tmux.sock"), session: "idle"},
		exitFile: filepath.Join(dir, "exit-code"), log: filepath.Join(dir, "client.log")}
	cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s --kubeconfig %s -n %s --log-file %s -v 6; echo $? > %s",
		dir, dir, bin, kubeconfig, ns, d.log, d.exitFile)
	d.run("new-session", "-d", "-s", d.session, "-x", "120", "-y", "40", cmd)
	b.Cleanup(func() { _ = exec.Command("tmux", "-S", d.socket, "kill-server").Run() })
	d.waitFor("the dashboard synced on the Pipeline view", func(s string) bool {
		return strings.Contains(s, "✓ synced") && strings.Contains(s, "API server") && strings.Contains(s, "Reflector")
	})
	return d
}

// closeDashboard quits informtop as a user would and stops its tmux server.
func closeDashboard(d *dashboard) {
	d.keys("q")
	d.waitExit(d.exitFile)
	_ = exec.Command("tmux", "-S", d.socket, "kill-server").Run()
}
