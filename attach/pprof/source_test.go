package pprof

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	nethttppprof "net/http/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

const workqueueMetrics = `# TYPE workqueue_depth gauge
workqueue_depth{name="pods"} 3
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="pods"} 42
# TYPE workqueue_longest_running_processor_seconds gauge
workqueue_longest_running_processor_seconds{name="pods"} 7.5
# TYPE workqueue_work_duration_seconds histogram
workqueue_work_duration_seconds_bucket{name="pods",le="+Inf"} 4
workqueue_work_duration_seconds_sum{name="pods"} 2
workqueue_work_duration_seconds_count{name="pods"} 4
`

// heldInThisTest is where this test's stuck handler waits: the frame the
// source must name.
//
//go:noinline
func heldInThisTest(release <-chan struct{}) { <-release }

// A real client-go informer in this process, one handler stuck in
// OnUpdate on a labelled pod, served by net/http/pprof: the source names
// the handler, the callback and this file's function; a Stalled event
// once dumps have seen the call for longer than StallAfter, Recovered
// after the release; the workqueue from /metrics.
func TestSourceReadsAStuckHandlerFromDumps(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "orders-1"}}
	client := fake.NewClientset(pod)
	factory := informers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().Pods().Informer()
	release := make(chan struct{})
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) })
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, obj any) {
		if obj.(*corev1.Pod).Labels["hold"] == "yes" {
			heldInThisTest(release)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("no sync")
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", nethttppprof.Index)
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, workqueueMetrics) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	s, err := New(srv.Listener.Addr().String(), srv.URL, Options{DumpInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(runCtx) })
	defer wg.Wait()
	defer stop()

	held := pod.DeepCopy()
	held.Labels = map[string]string{"hold": "yes"}
	if _, err := client.CoreV1().Pods("shop").Update(ctx, held, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var events []source.Event
	var cursor uint64
	until := func(what string, ok func(f source.Frame) bool) source.Frame {
		t.Helper()
		var f source.Frame
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
			f = s.Pull(cursor, 0)
			cursor = f.Next
			events = append(events, f.Events...)
			return ok(f), nil
		})
		if err != nil {
			t.Fatalf("waiting for %s: %v; last frame %+v, events %+v", what, err, f.Snapshots, events)
		}
		return f
	}
	hasEvent := func(typ source.EventType) bool {
		for _, e := range events {
			if e.Type == typ {
				return true
			}
		}
		return false
	}
	f := until("a Stalled event", func(source.Frame) bool { return hasEvent(source.EventStalled) })
	if len(f.Snapshots) != 1 || len(f.Snapshots[0].Listeners) != 1 {
		t.Fatalf("snapshots %+v; want one informer with one listener", f.Snapshots)
	}
	l := f.Snapshots[0].Listeners[0]
	if f.Snapshots[0].Name != "github.com/informtop/informtop/attach/pprof.TestSourceReadsAStuckHandlerFromDumps" || l.Name != f.Snapshots[0].Name {
		t.Errorf("informer %q, listener %q; want both named for this test's function, as client-go names the handler", f.Snapshots[0].Name, l.Name)
	}
	if l.InCallback != source.CallbackUpdate || l.Frame == nil || l.Frame.Function != "github.com/informtop/informtop/attach/pprof.heldInThisTest" ||
		!strings.HasSuffix(l.Frame.File, "source_test.go") {
		t.Errorf("listener in %q at %v; want OnUpdate in heldInThisTest (source_test.go)", l.InCallback, l.Frame)
	}
	if since, stalled := l.StalledSince(time.Now(), source.StallAfter); !stalled || time.Since(since) < source.StallAfter {
		t.Errorf("in the call since %v; want a stall older than %s", l.InCallbackSince, source.StallAfter)
	}
	if len(f.Workqueues) != 1 || f.Workqueues[0].Name != "pods" || f.Workqueues[0].Depth != 3 || f.Workqueues[0].Adds != 42 ||
		f.Workqueues[0].LongestRunning != 7500*time.Millisecond || f.Workqueues[0].WorkDurationMean != 500*time.Millisecond {
		t.Errorf("workqueues %+v; want pods with depth 3, 42 adds, 7.5s longest running, 0.5s mean work", f.Workqueues)
	}
	if !strings.Contains(strings.Join(f.Notes, "\n"), NoAgent) {
		t.Errorf("notes %q do not say what needs the agent", f.Notes)
	}

	releaseOnce.Do(func() { close(release) })
	until("a Recovered event", func(source.Frame) bool { return hasEvent(source.EventRecovered) })
	for _, e := range events {
		if e.Type == source.EventRecovered && (e.Duration < source.StallAfter || !strings.Contains(e.Frame, "heldInThisTest (source_test.go:")) {
			t.Errorf("Recovered %+v; want at least %s in heldInThisTest", e, source.StallAfter)
		}
	}
	sourcetest.Conform(t, s, 0, nil)
}

// The refusals are sentences: a 403 names the RBAC rule, a 404 says pprof
// is not served, each wraps source.ErrUnreachable, and WaitSynced says it
// at once.
func TestSourceRefusesInSentences(t *testing.T) {
	for _, c := range []struct {
		status    int
		want      string
		notServed bool
	}{
		{http.StatusForbidden, `nonResourceURLs: ["/debug/pprof/*"], verbs: ["get"]`, false},
		{http.StatusNotFound, "(404): turn profiling on", true},
		{http.StatusUnauthorized, "wants a bearer token", false},
	} {
		t.Run(http.StatusText(c.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(c.status) }))
			defer srv.Close()
			s, err := New("target:1", srv.URL, Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Check(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, source.ErrUnreachable) || IsNotServed(err) != c.notServed {
				t.Fatalf("Check: %v; want a sentence with %q wrapping ErrUnreachable (not served: %t)", err, c.want, c.notServed)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			wg.Go(func() { s.Run(ctx) })
			defer wg.Wait()
			defer cancel()
			if err := s.WaitSynced(ctx); !errors.Is(err, source.ErrUnreachable) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("WaitSynced: %v; want the refusal", err)
			}
		})
	}
	if _, err := New("target:1", "http://target:1", Options{DumpInterval: 100 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Errorf("a 100ms dump interval: %v; want a sentence saying it is too short", err)
	}
}
