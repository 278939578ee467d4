package main

// The dashboard's memory against client-go's typed informer on the same
// objects (docs/benchmarks.md, "The dashboard's memory"): a real API
// server holding INFORMTOP_MEMORY_OBJECTS configmaps of about 600 B,
// testdata/typedinformer (client-go's informer for them and nothing
// else) and the dashboard in tmux, one after the other, twice, each
// measured by its VmRSS once synced and idle. Off unless asked for: it
// creates tens of thousands of objects.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/internal/kubetest"
)

const envMemoryObjects = "INFORMTOP_MEMORY_OBJECTS"

// memorySettle is how long each process is left alone once synced before
// its RSS is read over memoryWindow.
const (
	memorySettle = 20 * time.Second
	memoryWindow = 10 * time.Second
)

func TestDashboardMemory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(envMemoryObjects))
	if n <= 0 {
		t.Skip("set " + envMemoryObjects + "=50000 to measure the dashboard's memory on that many configmaps")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	c := kubetest.Shared(t)
	cs := fastClient(t, c)
	const ns = "memory"
	createNamespace(t, cs, ns)
	began := time.Now()
	createConfigMaps(t, cs, ns, n)
	t.Logf("created %d configmaps in %s", n, time.Since(began).Round(time.Second))

	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	if prof := os.Getenv("INFORMTOP_HEAPPROFILE"); prof != "" {
		// What the dashboard holds, written on SIGUSR1 once idle.
		bin = filepath.Join(dir, "informtop-heapprofile")
		build := exec.Command("go", "build", "-tags", "heapprofile", "-o", bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	ref := filepath.Join(dir, "typedinformer")
	if out, err := exec.Command("go", "build", "-o", ref, "./testdata/typedinformer").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var refRSS, dashRSS []rss
	extra := os.Getenv("INFORMTOP_MEMORY_ENV") // e.g. GOGC=50: the dashboard run again with it, for comparison
	for round := range 2 {
		refRSS = append(refRSS, typedInformerRSS(t, ref, c.Kubeconfig, ns))
		dashRSS = append(dashRSS, dashboardRSS(t, bin, c.Kubeconfig, ns, n, fmt.Sprint(round), ""))
		r, d := refRSS[round], dashRSS[round]
		t.Logf("round %d: peak: typed informer %.1f MiB, dashboard %.1f MiB: %.2f×; idle: %.1f vs %.1f MiB: %.2f× (anonymous %.1f vs %.1f, file-backed %.1f vs %.1f)", round+1,
			mib(r.peak), mib(d.peak), float64(d.peak)/float64(r.peak), mib(r.idle), mib(d.idle), float64(d.idle)/float64(r.idle),
			mib(r.anon), mib(d.anon), mib(r.file), mib(d.file))
		if extra != "" {
			x := dashboardRSS(t, bin, c.Kubeconfig, ns, n, fmt.Sprint(round)+"x", extra)
			t.Logf("round %d: dashboard with %s: peak %.1f MiB (%.2f×), idle %.1f MiB (%.2f×)", round+1, extra,
				mib(x.peak), float64(x.peak)/float64(r.peak), mib(x.idle), float64(x.idle)/float64(r.idle))
		}
	}
	ratio := func(f func(rss) int64) float64 {
		return median([]float64{float64(f(dashRSS[0])) / float64(f(refRSS[0])), float64(f(dashRSS[1])) / float64(f(refRSS[1]))})
	}
	peak := ratio(func(r rss) int64 { return r.peak })
	t.Logf("the dashboard's RSS over the typed informer's, %d configmaps: peak %.2f×, idle %.2f× (medians of %d rounds)",
		n, peak, ratio(func(r rss) int64 { return r.idle }), len(refRSS))
	if peak > memoryPeakGoal {
		t.Errorf("the dashboard's peak RSS is %.2f× the typed informer's, over the goal of %.1f×", peak, memoryPeakGoal)
	}
}

// memoryPeakGoal bounds the dashboard's peak RSS over the typed
// informer's on the same objects: users size their limits on the peak.
const memoryPeakGoal = 1.2

// rss is one process's resident memory: the most it ever held (VmHWM)
// and the median once synced and idle.
type rss struct{ peak, idle, anon, file int64 }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// typedInformerRSS runs the reference until synced and idle, and returns
// its median RSS over the window.
func typedInformerRSS(t *testing.T, bin, kubeconfig, ns string) rss {
	t.Helper()
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--namespace", ns)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || strings.TrimSpace(line) != "synced" {
		t.Fatalf("the typed informer did not sync: %q, %v", line, err)
	}
	return idleRSS(cmd.Process.Pid)
}

// dashboardRSS runs the dashboard in tmux, as a user would, on the
// Pipeline view (the one it opens on) until synced and idle.
func dashboardRSS(t *testing.T, bin, kubeconfig, ns string, n int, round, env string) rss {
	t.Helper()
	dir := t.TempDir()
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "memory" + round}
	pidFile := filepath.Join(dir, "pid")
	cmd := fmt.Sprintf("echo $$ > %s; exec env HOME=%s XDG_CONFIG_HOME=%s %s %s --kubeconfig %s -n %s -r configmaps",
		pidFile, dir, dir, env, bin, kubeconfig, ns)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "160", "-y", "48", cmd)
	defer func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() }()
	tm.waitFor("the dashboard synced", func(s string) bool {
		return strings.Contains(s, "✓ synced") && strings.Contains(s, humanize.Count(n))
	})
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	rss := idleRSS(pid)
	if os.Getenv("INFORMTOP_HEAPPROFILE") != "" {
		_ = syscall.Kill(pid, syscall.SIGUSR1)
		time.Sleep(2 * time.Second)
	}
	return rss
}

// idleRSS waits memorySettle, then returns the median VmRSS of one read a
// second over memoryWindow, and the peak (VmHWM) at its end.
func idleRSS(pid int) rss {
	time.Sleep(memorySettle)
	var v []float64
	for range int(memoryWindow / time.Second) {
		v = append(v, float64(vmRSS(pid)))
		time.Sleep(time.Second)
	}
	return rss{peak: procStatus(pid, "VmHWM:"), idle: int64(median(v)), anon: procStatus(pid, "RssAnon:"), file: procStatus(pid, "RssFile:")}
}

// createConfigMaps creates n configmaps of about 600 B each.
func createConfigMaps(t *testing.T, cs kubernetes.Interface, ns string, n int) {
	t.Helper()
	value := strings.Repeat("v", 400)
	ex := costExample{create: func(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "memory"}},
			Data: map[string]string{"payload": value}}
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		return err
	}}
	createObjects(t, cs, ex, ns, "cm", n)
}
