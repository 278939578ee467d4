package engine

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/benchlw"
)

// BenchmarkRelist: a synced informer's watch expires (410) and the
// reflector lists again; every pod comes back with a new resourceVersion,
// so the handler gets an update for each. Measured from the relist's LIST
// to the handler's last update, as ms/relist: the wait the reflector takes
// before listing again is client-go's backoff, the same for both.
func BenchmarkRelist(b *testing.B) {
	const n = 100_000
	first := benchlw.New(n).Pods()
	second := first.DeepCopy()
	for i := range second.Items {
		second.Items[i].ResourceVersion = strconv.Itoa(n + i + 1)
	}
	second.ResourceVersion = strconv.Itoa(2 * n)
	for _, impl := range benchImpls {
		b.Run("objects=100000/"+impl.name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				total += relistOnce(b, impl, first, second)
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "ms/relist")
		})
	}
}

// relistOnce syncs a fresh informer on first, expires its watch and
// returns how long the relist of second took to reach the handler. A
// second handler only says when the initial list has been handled; it
// counts the relist's updates too, past its count, at no cost.
func relistOnce(b *testing.B, impl benchImpl, first, second *corev1.PodList) time.Duration {
	lw := &relistLW{lists: [2]*corev1.PodList{first, second}, opened: make(chan struct{})}
	inf := impl.make(lw)
	synced := benchlw.NewCounter(len(first.Items))
	h := benchlw.NewCounter(len(first.Items) + len(second.Items))
	for _, h := range []*benchlw.Counter{synced, h} {
		if _, err := inf.AddEventHandler(h); err != nil {
			b.Fatal(err)
		}
	}
	done := make(chan struct{})
	var end time.Time
	go func() {
		// The initial list handled before the watch expires, so the
		// relist is measured on its own.
		<-lw.opened
		<-synced.Done()
		lw.expire()
		<-h.Done()
		end = time.Now()
		close(done)
	}()
	runUntil(inf, done)
	return end.Sub(time.Unix(0, lw.relistAt.Load()))
}

// relistLW serves lists[0], then lists[1] on every later LIST, and a fresh
// watch each time; expire ends the first watch with 410 Gone.
// Locking: mu guards watches; relistAt is written once, before the relist
// is handed back.
type relistLW struct {
	lists    [2]*corev1.PodList
	listed   atomic.Int32
	relistAt atomic.Int64 // UnixNano of the second LIST
	mu       sync.Mutex
	watches  []*watch.FakeWatcher
	opened   chan struct{} // closes when the first watch opens
}

func (lw *relistLW) IsWatchListSemanticsUnSupported() bool { return true }

func (lw *relistLW) List(metav1.ListOptions) (runtime.Object, error) {
	if lw.listed.Add(1) == 1 {
		return lw.lists[0], nil
	}
	lw.relistAt.CompareAndSwap(0, time.Now().UnixNano())
	return lw.lists[1], nil
}

func (lw *relistLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	w := watch.NewFakeWithChanSize(1, false)
	lw.watches = append(lw.watches, w)
	if len(lw.watches) == 1 {
		close(lw.opened)
	}
	return w, nil
}

func (lw *relistLW) expire() {
	lw.mu.Lock()
	w := lw.watches[0]
	lw.mu.Unlock()
	w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
}

var _ cache.ListerWatcher = (*relistLW)(nil)
