package main

// What informtop's debug agent costs the controller it is linked into:
// each example's test twin (examples/internal/cmd: the example's
// controller, measured from outside) built with the agent's lines
// (client-go's informer observed by the agent) and with -tags plain (the
// same controller, no informtop linked at all), measured side by side in
// the same run on the shared cluster.
// docs/benchmarks.md ("Cost of the agent in a controller") has the
// figures and how to rerun them.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

const (
	// costSizeGoal bounds what linking the agent adds to the client-go
	// example's binary (default go build flags): 3 MiB.
	costSizeGoal = 3 << 20
	// costIdleTolerance is how much more the instrumented controller may
	// allocate per second while idle than the plain one does, for what
	// the server sends one and not the other within a window (a watch
	// bookmark is a few KB, about once a minute per watch). What the
	// agent's own code allocates is measured apart, exactly, and must
	// be 0.
	costIdleTolerance = 1024 // bytes/s
	// costRSSSanity bounds the idle RSS the agent adds, loosely: the
	// goal is 3 MB, but on this 2-core machine, shared with other jobs,
	// the difference read 0.3–3.3 MiB from run to run (docs/benchmarks.md).
	costRSSSanity = 8 << 20
	// costSettle and costWindow: after every object is reconciled, the
	// controllers are left alone costSettle before the idle window of
	// costWindow in which allocation and RSS are measured.
	costSettle = 5 * time.Second
	costWindow = 15 * time.Second
)

// costHeavy are import paths (prefixes ending in /) that must stay off
// an instrumented controller's link path: test and dashboard code.
var costHeavy = []string{
	"github.com/google/go-cmp/", "charm.land/", "github.com/charmbracelet/", "github.com/klauspost/compress/",
	"github.com/informtop/informtop/tui/", "github.com/informtop/informtop/recording/", "github.com/informtop/informtop/replay/",
	"github.com/informtop/informtop/demo/", "github.com/informtop/informtop/attach/", "github.com/informtop/informtop/engine",
}

// costExample is one example controller and how to make the objects it
// reconciles.
type costExample struct {
	dir    string // under examples/internal/cmd/
	short  string // in subtest and metric names
	create func(ctx context.Context, cs kubernetes.Interface, ns, name string) error
}

var costExamples = []costExample{
	{dir: "client-go-controller", short: "client-go", create: func(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
		_, err := cs.AppsV1().Deployments(ns).Create(ctx, deployment(ns, name), metav1.CreateOptions{})
		return err
	}},
	{dir: "controller-runtime-manager", short: "controller-runtime", create: func(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"k": name}}
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		return err
	}},
}

// costVariants: plain first, as the tables read.
var costVariants = []string{"plain", "instrumented"}

// buildCost builds an example, plain (-tags plain) or instrumented (as
// it ships), with extra go build flags, and returns its path and size.
func buildCost(t testing.TB, dir string, ex costExample, variant string, flags ...string) (string, int64) {
	t.Helper()
	return buildCostAt(t, examplectl.Versions[0], dir, ex, variant, flags...)
}

// buildCostAt is buildCost with the client-go and controller-runtime of
// Kubernetes minor: the examples' module pins the oldest, the module
// test/agent/k8s-<minor> each newer one.
func buildCostAt(t testing.TB, minor, dir string, ex costExample, variant string, flags ...string) (string, int64) {
	t.Helper()
	bin := filepath.Join(dir, ex.short+"-"+minor+"-"+variant+strings.Join(flags, ""))
	bin = strings.NewReplacer(" ", "", "=", "", "-ldflags", "").Replace(bin)
	args := append([]string{"build", "-o", bin}, flags...)
	if variant == "plain" {
		args = append(args, "-tags", "plain")
	}
	build := exec.Command("go", append(args, "./internal/cmd/"+ex.dir)...)
	build.Dir = filepath.Join("..", "..", "examples")
	if minor != examplectl.Versions[0] {
		build.Args[len(build.Args)-1] = "github.com/informtop/informtop/examples/internal/cmd/" + ex.dir
		build.Dir = filepath.Join("..", "..", "test", "agent", "k8s-"+minor)
	}
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(build.Args[1:], " "), err, out)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	return bin, fi.Size()
}

// runtimeStats is one line of the examples' --runtime-stats.
type runtimeStats struct {
	seq, allocBytes, allocObjects, gcCycles, heapLive, goroutines uint64
	at                                                            time.Time // when the line arrived
	rss, rssAnon, rssFile                                         int64     // VmRSS, RssAnon and RssFile read right after, bytes
}

var runtimeStatsRE = regexp.MustCompile(`^runtime-stats seq=(\d+) heap-allocs-bytes=(\d+) heap-allocs-objects=(\d+) gc-cycles=(\d+) heap-live-bytes=(\d+) goroutines=(\d+)$`)

func parseRuntimeStats(line string) (runtimeStats, bool) {
	m := runtimeStatsRE.FindStringSubmatch(line)
	if m == nil {
		return runtimeStats{}, false
	}
	var v [6]uint64
	for i := range v {
		v[i], _ = strconv.ParseUint(m[i+1], 10, 64)
	}
	return runtimeStats{seq: v[0], allocBytes: v[1], allocObjects: v[2], gcCycles: v[3], heapLive: v[4], goroutines: v[5], at: time.Now()}, true
}

// totalRE finds the count both examples log with every reconcile.
var totalRE = regexp.MustCompile(`"reconciled [^"]*".* total=(\d+)`)

// costProcess is an example controller started with --runtime-stats.
type costProcess struct {
	name  string
	cmd   *exec.Cmd
	ready chan struct{} // closed at "Starting workers": synced, workers started
	stats chan runtimeStats
	seq   uint64
	done  chan struct{}
	once  sync.Once

	mu          sync.Mutex
	tail        []string // the last lines, for failures
	total       int64
	target      int64
	reached     chan struct{} // closed when total reaches target
	reachedAt   time.Time
	reachedCPU  time.Duration
	startedAt   time.Time
	readyClosed bool
}

// startCost starts bin on ns with --runtime-stats and the agent's
// address (loopback, a free port: no client ever attaches).
func startCost(t testing.TB, name, bin, kubeconfig, ns string, extra ...string) *costProcess {
	t.Helper()
	p := &costProcess{name: name, ready: make(chan struct{}), stats: make(chan runtimeStats, 1), done: make(chan struct{}), reached: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"--kubeconfig", kubeconfig, "--namespace", ns, "--agent-addr", "127.0.0.1:0", "--runtime-stats"}, extra...)...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.startedAt = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(stderr)
	t.Cleanup(p.stop)
	return p
}

func (p *costProcess) read(stderr io.Reader) {
	defer close(p.done)
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if s, ok := parseRuntimeStats(line); ok {
			pid := p.cmd.Process.Pid
			s.rss, s.rssAnon, s.rssFile = vmRSS(pid), procStatus(pid, "RssAnon:"), procStatus(pid, "RssFile:")
			p.stats <- s
			continue
		}
		p.mu.Lock()
		if len(p.tail) == 40 {
			p.tail = p.tail[1:]
		}
		p.tail = append(p.tail, line)
		if !p.readyClosed && strings.Contains(line, `"Starting workers"`) {
			p.readyClosed = true
			close(p.ready)
		}
		if m := totalRE.FindStringSubmatch(line); m != nil {
			// Workers log concurrently: a lower total may come last.
			n, _ := strconv.ParseInt(m[1], 10, 64)
			p.total = max(p.total, n)
			if p.target > 0 && p.total >= p.target {
				p.reachedAt, p.reachedCPU = time.Now(), cpuTime(p.cmd.Process.Pid)
				close(p.reached)
				p.target = 0
			}
		}
		p.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, stderr)
}

// stop ends the controller (SIGTERM) and waits for it.
func (p *costProcess) stop() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		_ = p.cmd.Wait()
	})
}

func (p *costProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, "\n")
}

// expect arms the wait for the reconcile count to reach n; call it
// before whatever makes the controller reconcile.
func (p *costProcess) expect(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reached = make(chan struct{})
	p.target = n
	if p.total >= n {
		p.reachedAt, p.reachedCPU = time.Now(), cpuTime(p.cmd.Process.Pid)
		close(p.reached)
		p.target = 0
	}
}

// waitReached waits for the count expect armed and returns when it was
// reached and the process's CPU time then.
func (p *costProcess) waitReached(t testing.TB, timeout time.Duration) (time.Time, time.Duration) {
	t.Helper()
	p.mu.Lock()
	reached := p.reached
	p.mu.Unlock()
	select {
	case <-reached:
	case <-p.done:
		t.Fatalf("%s exited before reconciling every object; its log:\n%s", p.name, p.log())
	case <-time.After(timeout):
		t.Fatalf("%s did not reconcile every object within %s; its log:\n%s", p.name, timeout, p.log())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reachedAt, p.reachedCPU
}

func (p *costProcess) waitReady(t testing.TB, timeout time.Duration) {
	t.Helper()
	select {
	case <-p.ready:
	case <-p.done:
		t.Fatalf("%s exited before syncing; its log:\n%s", p.name, p.log())
	case <-time.After(timeout):
		t.Fatalf("%s did not sync within %s; its log:\n%s", p.name, timeout, p.log())
	}
}

// sample asks for one --runtime-stats line (SIGUSR1) and waits for it.
func (p *costProcess) sample(t testing.TB) runtimeStats {
	t.Helper()
	p.seq++
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case s := <-p.stats:
			if s.seq == p.seq {
				return s
			}
		case <-p.done:
			t.Fatalf("%s exited; its log:\n%s", p.name, p.log())
		case <-timeout:
			t.Fatalf("%s printed no runtime-stats line %d within 10s; its log:\n%s", p.name, p.seq, p.log())
		}
	}
}

// vmRSS is a process's resident set, from /proc; -1 if unreadable.
func vmRSS(pid int) int64 { return procStatus(pid, "VmRSS:") }

// procStatus is a figure in kB of /proc/PID/status, in bytes; -1 if
// unreadable.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// cpuTime is a process's user and system CPU time so far, from /proc
// (clock ticks of 10 ms); -1 if unreadable.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The fields after the command's name, which is in parentheses.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return -1
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// createObjects creates n objects ex reconciles, named prefix-0…, with
// a few requests at a time.
func createObjects(t testing.TB, cs kubernetes.Interface, ex costExample, ns, prefix string, n int) {
	t.Helper()
	const workers = 8
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if err := ex.create(context.Background(), cs, ns, fmt.Sprintf("%s-%d", prefix, i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// fastClient is a clientset for creating many objects quickly.
func fastClient(t testing.TB, c *kubetest.Cluster) kubernetes.Interface {
	t.Helper()
	cfg := c.RESTConfig()
	cfg.QPS, cfg.Burst = 2000, 2000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// idleFigures is what one controller did in the idle window.
type idleFigures struct {
	allocPerSec float64 // bytes/s
	objsPerSec  float64
	gcCycles    uint64
	rss         int64 // median VmRSS over the window's samples
	anon, file  int64 // RssAnon and RssFile of the window's last sample
	heapLive    uint64
	goroutines  uint64
}

func idleOf(samples []runtimeStats) idleFigures {
	first, last := samples[0], samples[len(samples)-1]
	secs := last.at.Sub(first.at).Seconds()
	rss := make([]int64, 0, len(samples))
	for _, s := range samples {
		rss = append(rss, s.rss)
	}
	slices.Sort(rss)
	return idleFigures{
		allocPerSec: float64(last.allocBytes-first.allocBytes) / secs,
		objsPerSec:  float64(last.allocObjects-first.allocObjects) / secs,
		gcCycles:    last.gcCycles - first.gcCycles,
		rss:         rss[len(rss)/2],
		anon:        last.rssAnon,
		file:        last.rssFile,
		heapLive:    last.heapLive,
		goroutines:  last.goroutines,
	}
}

// profileRecord is one stack of a text allocation profile.
type profileRecord struct {
	inuseBytes               int64 // as of the last garbage collection
	allocObjects, allocBytes int64
	frames                   []string // functions, innermost first
}

// readAllocProfile reads a profile written by pprof.Lookup("allocs")
// with debug=1, keyed by its stack's addresses.
func readAllocProfile(t testing.TB, path string) map[string]profileRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile(`^\d+: (\d+) \[(\d+): (\d+)\] @ (.*)$`)
	frame := regexp.MustCompile(`^#\t0x[0-9a-f]+\t(\S+)`)
	out := map[string]profileRecord{}
	var key string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\n")
		if m := head.FindStringSubmatch(line); m != nil {
			key = m[4]
			inuse, _ := strconv.ParseInt(m[1], 10, 64)
			objs, _ := strconv.ParseInt(m[2], 10, 64)
			bytes, _ := strconv.ParseInt(m[3], 10, 64)
			r := out[key]
			r.inuseBytes += inuse
			r.allocObjects += objs
			r.allocBytes += bytes
			out[key] = r
			continue
		}
		if m := frame.FindStringSubmatch(line); m != nil && key != "" {
			r := out[key]
			r.frames = append(r.frames, m[1])
			out[key] = r
			continue
		}
		if line == "" || strings.HasPrefix(line, "# runtime.MemStats") {
			key = ""
		}
	}
	return out
}

// allocatedBetween is what each stack allocated from profile a to
// profile b, largest first, without the profiling's own work.
func allocatedBetween(a, b map[string]profileRecord) []profileRecord {
	var out []profileRecord
	for key, rb := range b {
		d := profileRecord{allocObjects: rb.allocObjects - a[key].allocObjects, allocBytes: rb.allocBytes - a[key].allocBytes, frames: rb.frames}
		if d.allocBytes <= 0 || slices.ContainsFunc(d.frames, func(f string) bool {
			return strings.HasPrefix(f, "runtime/pprof.") || strings.Contains(f, "examples/internal/runtimestats.")
		}) {
			continue
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].allocBytes > out[j].allocBytes })
	return out
}

// informtopCode says whether a function is informtop's, outside the
// examples themselves.
func informtopCode(fn string) bool {
	return strings.HasPrefix(fn, "github.com/informtop/informtop/") && !strings.HasPrefix(fn, "github.com/informtop/informtop/examples")
}

// allocatingCode is the innermost frame of an allocation's stack that is
// not the standard library's: the code that allocated, itself or
// through the standard library. The frames further out only called it:
// client-go's informer runs under the agent's Run, so most of its
// allocations have informtop's frame at the bottom of their stack, and
// the plain controller makes them too.
func allocatingCode(frames []string) string {
	for _, f := range frames {
		// A module's path starts with a domain (github.com/…, k8s.io/…);
		// the standard library's does not (fmt.Sprint, crypto/tls.…,
		// vendor/golang.org/…), nor does the program's main.
		if first, _, ok := strings.Cut(f, "/"); ok && strings.Contains(first, ".") {
			return f
		}
	}
	return ""
}

// What linking the agent costs a controller that no one attaches to,
// for both examples: the binary's size (≤ 3 MiB more for client-go's
// informer, nothing heavy on the link path), and, side by side on the
// same cluster, the allocation while idle (the agent's own code
// allocates nothing: every allocation is profiled and attributed) and
// the resident memory (reported).
func TestControllerCost(t *testing.T) {
	if testing.Short() {
		t.Skip("measures idle controllers for about a minute")
	}
	c := kubetest.Shared(t)
	dir := t.TempDir()

	// The plain build links no informtop package; the instrumented one
	// nothing heavy that the agent does not need.
	for _, ex := range costExamples {
		for _, variant := range costVariants {
			args := []string{"list", "-deps"}
			if variant == "plain" {
				args = append(args, "-tags", "plain")
			}
			list := exec.Command("go", append(args, "./internal/cmd/"+ex.dir)...)
			list.Dir = filepath.Join("..", "..", "examples")
			out, err := list.Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			for p := range strings.Lines(string(out)) {
				p = strings.TrimSpace(p)
				if variant == "plain" && informtopCode(p+".") {
					t.Errorf("%s built -tags plain imports %s", ex.dir, p)
				}
				for _, heavy := range costHeavy {
					if strings.HasPrefix(p+"/", heavy) {
						t.Errorf("%s (%s) links %s", ex.dir, variant, p)
					}
				}
			}
		}
	}

	bins := map[string]map[string]string{}
	for _, ex := range costExamples {
		bins[ex.short] = map[string]string{}
		var size [2]int64
		for i, variant := range costVariants {
			bins[ex.short][variant], size[i] = buildCost(t, dir, ex, variant)
		}
		delta := size[1] - size[0]
		t.Logf("%s binary: plain %d B, instrumented %d B: +%d B (%.2f MiB)", ex.short, size[0], size[1], delta, float64(delta)/(1<<20))
		if ex.short == "client-go" && delta > costSizeGoal {
			t.Errorf("the agent adds %d B (%.2f MiB) to the client-go controller, more than %d MiB", delta, float64(delta)/(1<<20), costSizeGoal>>20)
		}
	}

	// Every controller of each example watches the same namespace of 50
	// objects; all six run at once, so the machine's noise hits all.
	cs := fastClient(t, c)
	type running struct {
		ex      costExample
		variant string
		p       *costProcess
		prefix  string // with --alloc-profile
	}
	var procs []*running
	const objects = 50
	for _, ex := range costExamples {
		ns := "cost-idle-" + ex.short
		clusterNamespace(t, c, ns)
		createObjects(t, cs, ex, ns, "obj", objects)
		for _, variant := range costVariants {
			procs = append(procs, &running{ex: ex, variant: variant, p: startCost(t, ex.short+" "+variant, bins[ex.short][variant], c.Kubeconfig, ns)})
		}
		// The instrumented controller again, every allocation profiled,
		// to say whose code allocates while idle.
		prefix := filepath.Join(dir, ex.short+".allocs")
		procs = append(procs, &running{ex: ex, variant: "profiled", prefix: prefix,
			p: startCost(t, ex.short+" instrumented, profiled", bins[ex.short]["instrumented"], c.Kubeconfig, ns, "--alloc-profile", prefix)})
	}
	for _, r := range procs {
		r.p.waitReady(t, 90*time.Second)
		r.p.expect(objects)
		r.p.waitReached(t, 60*time.Second)
	}

	// Idle: a fixed wait here is the measurement, not synchronisation.
	// Leave the controllers alone for the settle time, then sample every
	// second through the window: its first and last samples bracket its
	// allocation, and RSS is the median of all. A profiled controller is
	// sampled at the window's ends only, since each sample writes its
	// profile.
	samples := make([][]runtimeStats, len(procs))
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	settle, window := int(costSettle/time.Second), int(costWindow/time.Second)
	for i := 0; i <= settle+window; i++ {
		if i > 0 {
			<-tick.C
		}
		if i < settle {
			continue
		}
		for j, r := range procs {
			if r.prefix == "" || i == settle || i == settle+window {
				samples[j] = append(samples[j], r.p.sample(t))
			}
		}
	}

	figures := map[string]map[string]idleFigures{}
	for j, r := range procs {
		if r.prefix != "" {
			continue
		}
		f := idleOf(samples[j])
		if figures[r.ex.short] == nil {
			figures[r.ex.short] = map[string]idleFigures{}
		}
		figures[r.ex.short][r.variant] = f
		t.Logf("%s %s, idle %s: %.0f B/s (%.1f objects/s), %d GCs, RSS %.1f MiB (median of %d; anonymous %.1f, file %.1f), live heap %.1f MiB, %d goroutines",
			r.ex.short, r.variant, costWindow, f.allocPerSec, f.objsPerSec, f.gcCycles, float64(f.rss)/(1<<20), len(samples[j]),
			float64(f.anon)/(1<<20), float64(f.file)/(1<<20), float64(f.heapLive)/(1<<20), f.goroutines)
	}
	for _, ex := range costExamples {
		plain, inst := figures[ex.short]["plain"], figures[ex.short]["instrumented"]
		t.Logf("%s: idle allocation %+.0f B/s, RSS %+.1f MiB, %+d goroutines with the agent",
			ex.short, inst.allocPerSec-plain.allocPerSec, float64(inst.rss-plain.rss)/(1<<20), int64(inst.goroutines)-int64(plain.goroutines))
		if d := inst.rss - plain.rss; d > costRSSSanity {
			t.Errorf("%s: the idle instrumented controller's RSS is %.1f MiB, the plain one's %.1f MiB: more than %d MiB apart",
				ex.short, float64(inst.rss)/(1<<20), float64(plain.rss)/(1<<20), costRSSSanity>>20)
		}
		if inst.allocPerSec > plain.allocPerSec+costIdleTolerance {
			t.Errorf("%s: the idle instrumented controller allocates %.0f B/s, the plain one %.0f B/s: more than %d B/s apart",
				ex.short, inst.allocPerSec, plain.allocPerSec, costIdleTolerance)
		}
	}

	// Whose code allocated in the profiled controllers' window.
	for j, r := range procs {
		if r.prefix == "" {
			continue
		}
		first, last := samples[j][0].seq, samples[j][len(samples[j])-1].seq
		end := readAllocProfile(t, fmt.Sprintf("%s.%d", r.prefix, last))
		diff := allocatedBetween(readAllocProfile(t, fmt.Sprintf("%s.%d", r.prefix, first)), end)
		liveHeapBy(t, r.ex.short, end)
		var total, agent int64
		var lines []string
		for _, d := range diff {
			total += d.allocBytes
			code := allocatingCode(d.frames)
			ours := informtopCode(code)
			if ours {
				agent += d.allocBytes
			}
			if ours || len(lines) < 8 {
				i := max(slices.Index(d.frames, code), 0)
				lines = append(lines, fmt.Sprintf("  %7d B %5d objects  %s", d.allocBytes, d.allocObjects, strings.Join(d.frames[i:min(len(d.frames), i+4)], " ← ")))
			}
		}
		t.Logf("%s, every allocation profiled: %d B in the window, %d B by informtop's code; largest stacks:\n%s", r.ex.short, total, agent, strings.Join(lines, "\n"))
		if agent != 0 {
			t.Errorf("%s: informtop's code allocated %d B in %s while idle with no client, want 0", r.ex.short, agent, costWindow)
		}
	}
}

// liveHeapBy logs how much of the heap informtop's code holds, by the
// code that allocated it (see allocatingCode), from an allocation
// profile written after a garbage collection.
func liveHeapBy(t *testing.T, what string, profile map[string]profileRecord) {
	t.Helper()
	held := map[string]int64{}
	var total, ours int64
	for _, r := range profile {
		total += r.inuseBytes
		if code := allocatingCode(r.frames); informtopCode(code) && r.inuseBytes > 0 {
			// With its caller: the same code may serve several.
			i := slices.Index(r.frames, code)
			where := strings.Join(r.frames[i:min(len(r.frames), i+2)], " ← ")
			held[where] += r.inuseBytes
			ours += r.inuseBytes
		}
	}
	codes := slices.Collect(maps.Keys(held))
	sort.Slice(codes, func(i, j int) bool { return held[codes[i]] > held[codes[j]] })
	var lines []string
	for _, code := range codes[:min(len(codes), 6)] {
		lines = append(lines, fmt.Sprintf("  %8d B  %s", held[code], code))
	}
	t.Logf("%s, idle: informtop's code holds %d B of a %d B live heap; most by:\n%s", what, ours, total, strings.Join(lines, "\n"))
}

// costObjects is how many objects each throughput run reconciles.
const costObjects = 2000

// createNamespace makes a namespace for a benchmark (clusterNamespace
// needs a *testing.T).
func createNamespace(tb testing.TB, cs kubernetes.Interface, ns string) {
	tb.Helper()
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
}

// median of a few figures.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// pairRatio is the median over pairs of plain / instrumented: each pair
// ran under the same load.
func pairRatio(v [2][]float64) float64 {
	r := make([]float64, len(v[0]))
	for i := range r {
		r[i] = v[0][i] / v[1][i]
	}
	return median(r)
}

// BenchmarkControllerCost measures, for each example, plain against
// instrumented in the same run (docs/benchmarks.md, "Cost of the agent in
// a controller"); one iteration is one pair, so -benchtime 5x runs five:
//
//   - size: the binaries' bytes, default flags and -ldflags=-s -w;
//   - sync: the controller started on costObjects existing objects, until
//     it has reconciled them all: wall time from exec, the process's CPU
//     time and RSS then; the two variants one after the other, which
//     goes first alternating;
//   - watch: both variants running side by side on an empty namespace
//     while costObjects are created: the CPU each spent until it had
//     reconciled them all, and how long after the last create it did
//     (the wall time is the API server's).
//
// Ratios are plain / instrumented, the median over pairs: 1 is no cost,
// 0.98 is 2 % slower (or 2 % more CPU) with the agent.
func BenchmarkControllerCost(b *testing.B) {
	c := kubetest.Shared(b)
	cs := fastClient(b, c)
	dir := b.TempDir()
	for _, minor := range examplectl.Versions {
		b.Run("kubernetes-"+minor, func(b *testing.B) { controllerCost(b, c, cs, dir, minor) })
	}
}

// controllerCost is BenchmarkControllerCost of the examples built with
// Kubernetes minor's client-go and controller-runtime.
func controllerCost(b *testing.B, c *kubetest.Cluster, cs kubernetes.Interface, dir, minor string) {
	for _, ex := range costExamples {
		bins := map[string]string{}
		var size [2]int64
		for i, variant := range costVariants {
			bins[variant], size[i] = buildCostAt(b, minor, dir, ex, variant)
		}

		b.Run(ex.short+"/size", func(b *testing.B) {
			var stripped [2]int64
			for i, variant := range costVariants {
				_, stripped[i] = buildCostAt(b, minor, dir, ex, variant, "-ldflags=-s -w")
			}
			for b.Loop() {
			}
			b.ReportMetric(float64(size[0]), "plain-bytes")
			b.ReportMetric(float64(size[1]), "instrumented-bytes")
			b.ReportMetric(float64(size[1]-size[0]), "delta-bytes")
			b.ReportMetric(float64(stripped[1]-stripped[0]), "delta-stripped-bytes")
			b.Logf("%s: plain %d B, instrumented %d B (+%d); -s -w: %d B, %d B (+%d)", ex.short, size[0], size[1], size[1]-size[0], stripped[0], stripped[1], stripped[1]-stripped[0])
		})

		b.Run(ex.short+"/sync", func(b *testing.B) {
			ns := "cost-sync-" + ex.short + "-" + strings.ReplaceAll(minor, ".", "-")
			createNamespace(b, cs, ns)
			createObjects(b, cs, ex, ns, "obj", costObjects)
			var wall, cpu, rss [2][]float64
			run := 0
			for b.Loop() {
				for k := range 2 {
					i := (run + k) % 2 // alternate which variant goes first
					p := startCost(b, ex.short+" "+costVariants[i], bins[costVariants[i]], c.Kubeconfig, ns)
					p.expect(costObjects)
					at, used := p.waitReached(b, 3*time.Minute)
					rss[i] = append(rss[i], float64(vmRSS(p.cmd.Process.Pid)))
					p.stop()
					wall[i] = append(wall[i], at.Sub(p.startedAt).Seconds())
					cpu[i] = append(cpu[i], used.Seconds())
				}
				run++
			}
			for k := range wall[0] {
				b.Logf("%s sync, pair %d: plain %.3f s (CPU %.2f s, RSS %.1f MiB), instrumented %.3f s (CPU %.2f s, RSS %.1f MiB)",
					ex.short, k+1, wall[0][k], cpu[0][k], rss[0][k]/(1<<20), wall[1][k], cpu[1][k], rss[1][k]/(1<<20))
			}
			b.ReportMetric(median(wall[0]), "plain-s")
			b.ReportMetric(median(wall[1]), "instrumented-s")
			b.ReportMetric(pairRatio(wall), "throughput-ratio")
			b.ReportMetric(pairRatio(cpu), "cpu-ratio")
			b.ReportMetric(median(rss[0])/(1<<20), "plain-RSS-MiB")
			b.ReportMetric(median(rss[1])/(1<<20), "instrumented-RSS-MiB")
		})

		b.Run(ex.short+"/watch", func(b *testing.B) {
			var lag, cpu [2][]float64
			run := 0
			for b.Loop() {
				ns := fmt.Sprintf("cost-watch-%s-%s-%d", ex.short, strings.ReplaceAll(minor, ".", "-"), run)
				createNamespace(b, cs, ns)
				var procs [2]*costProcess
				var cpu0 [2]time.Duration
				for i, variant := range costVariants {
					procs[i] = startCost(b, ex.short+" "+variant, bins[variant], c.Kubeconfig, ns)
				}
				for i, p := range procs {
					p.waitReady(b, 90*time.Second)
					cpu0[i] = cpuTime(p.cmd.Process.Pid)
					p.expect(costObjects)
				}
				createObjects(b, cs, ex, ns, "obj", costObjects)
				created := time.Now()
				for i, p := range procs {
					at, used := p.waitReached(b, 3*time.Minute)
					lag[i] = append(lag[i], max(at.Sub(created), 0).Seconds())
					cpu[i] = append(cpu[i], (used - cpu0[i]).Seconds())
				}
				for _, p := range procs {
					p.stop()
				}
				run++
			}
			for k := range cpu[0] {
				b.Logf("%s watch, pair %d: CPU plain %.2f s, instrumented %.2f s; done %.3f s and %.3f s after the last create",
					ex.short, k+1, cpu[0][k], cpu[1][k], lag[0][k], lag[1][k])
			}
			b.ReportMetric(median(cpu[0])/costObjects*1e6, "plain-cpu-µs/object")
			b.ReportMetric(median(cpu[1])/costObjects*1e6, "instrumented-cpu-µs/object")
			b.ReportMetric(pairRatio(cpu), "cpu-ratio")
			b.ReportMetric(median(lag[0]), "plain-lag-s")
			b.ReportMetric(median(lag[1]), "instrumented-lag-s")
		})
	}
}

// allocatingCode skips the standard library, however its functions are
// named, and stops at the first module's frame.
func TestAllocatingCode(t *testing.T) {
	for _, c := range []struct {
		frames []string
		want   string
	}{
		{[]string{"runtime.mallocgc+0xa4", "runtime.makeslice+0x48", "fmt.Sprint+0x50", "github.com/informtop/informtop/agent.(*Set).watch+0x1d0", "k8s.io/client-go/tools/cache.(*controller).Run+0x1"}, "github.com/informtop/informtop/agent.(*Set).watch+0x1d0"},
		{[]string{"crypto/tls.(*Conn).Write+0x37d", "vendor/golang.org/x/net/http2/hpack.(*Encoder).WriteField+0x1", "golang.org/x/net/http2.(*ClientConn).ping+0x44", "github.com/informtop/informtop/agent.(*watched).RunWithContext+0x1"}, "golang.org/x/net/http2.(*ClientConn).ping+0x44"},
		{[]string{"runtime.malg+0x24", "main.run+0x10", "runtime.main+0x1"}, ""},
	} {
		if got := allocatingCode(c.frames); got != c.want {
			t.Errorf("allocatingCode(%q) = %q, want %q", c.frames, got, c.want)
		}
	}
	if !informtopCode("github.com/informtop/informtop/engine/instr.NewRing+0x76") || informtopCode("github.com/informtop/informtop/examples/internal/runtimestats.Start+0x1") {
		t.Error("informtopCode tells informtop's code from the examples' wrongly")
	}
}
