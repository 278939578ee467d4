package agent

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
)

// serverSource is the fake controller source with the one thing an API
// server does that it does not: it ends a watch at the timeout the
// reflector asked for (or, hung, never ends it, as a proxy that keeps the
// connection and passes nothing would).
type serverSource struct {
	testSource
	hung  bool
	asked *timeouts
}

// timeouts are the watch timeouts the reflector asked for, in order.
type timeouts struct {
	mu      sync.Mutex
	seconds []int64
}

func (ts *timeouts) first() time.Duration {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.seconds) == 0 {
		return 0
	}
	return time.Duration(ts.seconds[0]) * time.Second
}

func (s serverSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	if options.TimeoutSeconds != nil {
		s.asked.mu.Lock()
		s.asked.seconds = append(s.asked.seconds, *options.TimeoutSeconds)
		s.asked.mu.Unlock()
	}
	w, err := s.testSource.Watch(options)
	if err != nil || s.hung || options.TimeoutSeconds == nil {
		return w, err
	}
	end := time.AfterFunc(time.Duration(*options.TimeoutSeconds)*time.Second, w.Stop)
	return &endingWatch{Interface: w, end: end}, nil
}

// endingWatch stops its server-side timer when the client stops it.
type endingWatch struct {
	watch.Interface
	end *time.Timer
}

func (w *endingWatch) Stop() {
	w.end.Stop()
	w.Interface.Stop()
}

// silentOver runs a pods informer through the agent on src for d of
// (fake) time, the pod updated once a minute in, and reports when the
// agent first called it silent (0: never), as the /metrics flag reads
// it, checked every second, the watches it opened and the timeout the
// first asked for.
func silentOver(t *testing.T, hung bool, d time.Duration) (firstSilent time.Duration, watches uint64, firstTimeout time.Duration) {
	src := serverSource{testSource: newTestSource(t, pod("a")), hung: hung, asked: &timeouts{}}
	set := NewSet()
	inf := NewInformer(set, WithName("pods"))(src, &corev1.Pod{}, 0, cache.Indexers{})
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	defer func() { cancel(); wg.Wait() }()
	for !inf.HasSynced() {
		time.Sleep(10 * time.Millisecond)
	}
	view := newInformers("test", set, nil)
	began := time.Now()
	for time.Since(began) < d {
		time.Sleep(time.Second)
		if time.Since(began) == time.Minute {
			// One event, then nothing: the resource goes idle and the
			// server owes no bookmark until its resourceVersion moves.
			p := pod("a")
			p.Labels = map[string]string{"touched": "yes"}
			src.Modify(p)
		}
		f := view.Pull(0, 0)
		s := f.Snapshots[0]
		if source.FreshnessOf(s, s.Taken).Silent && firstSilent == 0 {
			firstSilent = time.Since(began)
		}
		watches = s.Reflector.Watches
	}
	return firstSilent, watches, src.asked.first()
}

// An idle informer on a server that ends its watches at their timeout
// (client-go asks for 5–10 minutes) is never silent over 20 minutes of
// fake time, one event and no bookmark included: the silent flag, and
// the "stale" and "Silent watches" it feeds, does not flicker. A watch
// that hangs past the timeout it asked for is called silent once that
// timeout and source.WatchEndGrace have passed since it opened, the
// event heard in between notwithstanding: not at a fixed 10m15s after
// the last sign of life.
func TestIdleInformerIsNotSilent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first, watches, _ := silentOver(t, false, 20*time.Minute)
		if first != 0 {
			t.Errorf("the idle informer was called silent %v in", first)
		}
		if watches < 3 {
			t.Errorf("%d watches in 20 minutes; want the reflector to have reopened its watch at each timeout", watches)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		first, watches, timeout := silentOver(t, true, 20*time.Minute)
		if timeout < 5*time.Minute || timeout >= 10*time.Minute {
			t.Fatalf("the reflector asked for a %v watch, want 5–10 minutes as client-go's reflector picks", timeout)
		}
		// The watch opened as the informer synced, when the clock began.
		if want := timeout + source.WatchEndGrace; first < want || first > want+2*time.Second || watches != 1 {
			t.Errorf("a hung %v watch: silent from %v (%d watches), want from %v, one watch", timeout, first, watches, want)
		}
	})
}
