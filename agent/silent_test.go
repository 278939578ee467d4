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
	hung bool
}

func (s serverSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
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
// it, checked every second, and the watches it opened.
func silentOver(t *testing.T, hung bool, d time.Duration) (firstSilent time.Duration, watches uint64) {
	src := serverSource{testSource: newTestSource(t, pod("a")), hung: hung}
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
	return firstSilent, watches
}

// An idle informer on a server that ends its watches at their timeout
// (client-go asks for 5–10 minutes) is never silent over 20 minutes of
// fake time, one event and no bookmark included: the silent flag, and
// the "stale" and "Silent watches" it feeds, does not flicker. A watch
// that hangs past its timeout is called silent once 10m15s pass without
// a sign of life.
func TestIdleInformerIsNotSilent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first, watches := silentOver(t, false, 20*time.Minute)
		if first != 0 {
			t.Errorf("the idle informer was called silent %v in", first)
		}
		if watches < 3 {
			t.Errorf("%d watches in 20 minutes; want the reflector to have reopened its watch at each timeout", watches)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		first, watches := silentOver(t, true, 20*time.Minute)
		// Heard last at the event, a minute in.
		if want := time.Minute + source.QuietWatchSilentAfter; first < want || first > want+2*time.Second || watches != 1 {
			t.Errorf("a hung watch: silent from %v (%d watches), want from %v, one watch", first, watches, want)
		}
	})
}
