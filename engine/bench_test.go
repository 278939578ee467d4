package engine

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/informtop/informtop/agent/shared/benchlw"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// The benchmarks run informtop's informer and client-go's on the same
// workload in the same process; `make bench` prints each pair with its
// ratio. Sub-benchmark names end in /ours, /ours-uninstrumented or
// /client-go so the pairs can be matched.

type benchImpl struct {
	name string
	make func(lw cache.ListerWatcher) cache.SharedIndexInformer
}

var benchImpls = []benchImpl{
	{"ours", func(lw cache.ListerWatcher) cache.SharedIndexInformer {
		return NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Indexers: benchIndexers()})
	}},
	{"ours-uninstrumented", func(lw cache.ListerWatcher) cache.SharedIndexInformer {
		return NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Indexers: benchIndexers(), Instrumentation: Instrumentation{Off: true}})
	}},
	{"client-go", func(lw cache.ListerWatcher) cache.SharedIndexInformer {
		return cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, benchIndexers())
	}},
}

func benchIndexers() cache.Indexers {
	return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
}

// runUntil runs inf until done closes, then stops it and waits.
func runUntil(inf cache.SharedIndexInformer, done <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		inf.RunWithContext(ctx)
	}()
	<-done
	cancel()
	<-stopped
}

// BenchmarkTimeToSynced: from Run to HasSynced with one handler that must
// also have seen the whole initial list.
func BenchmarkTimeToSynced(b *testing.B) {
	// The first sync in a fresh process also pays for growing the heap;
	// do one per variant untimed so whichever runs first is not penalised.
	warm := benchlw.New(10_000)
	for _, impl := range benchImpls {
		syncOnce(b, impl, warm)
	}
	for _, n := range []int{10_000, 100_000} {
		lw := benchlw.New(n)
		for _, impl := range benchImpls {
			b.Run(fmt.Sprintf("objects=%d/%s", n, impl.name), func(b *testing.B) {
				for b.Loop() {
					settle(b)
					syncOnce(b, impl, lw)
				}
			})
		}
	}
}

// syncOnce runs a fresh informer over lw's list until it and its one
// handler have seen the whole list, then stops it.
func syncOnce(b *testing.B, impl benchImpl, lw *benchlw.PodLW) {
	n := len(lw.Pods().Items)
	inf := impl.make(benchlw.Of(lw.Pods()))
	h := benchlw.NewCounter(n)
	if _, err := inf.AddEventHandler(h); err != nil {
		b.Fatal(err)
	}
	synced := make(chan struct{})
	go func() {
		<-h.Done()
		cache.WaitForCacheSync(nil, inf.HasSynced)
		close(synced)
	}()
	runUntil(inf, synced)
}

// BenchmarkWatchThroughput: watch events until every handler has seen
// every one, with 1 and 10 handlers; reports ns and allocations per event.
func BenchmarkWatchThroughput(b *testing.B) {
	const initial, events = 1_000, 20_000
	for _, handlers := range []int{1, 10} {
		for _, impl := range benchImpls {
			b.Run(fmt.Sprintf("handlers=%d/%s", handlers, impl.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					lw := benchlw.New(initial)
					goruntime.GC()
					b.StartTimer()
					deliverAll(b, impl.make(lw), lw, handlers, initial, events)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
			})
		}
	}
}

// BenchmarkRetainedHeap: heap held per cached object once synced (the
// objects themselves are shared with the list, so this is the cache's own
// overhead: store, indexes, queue leftovers).
func BenchmarkRetainedHeap(b *testing.B) {
	const n = 100_000
	lw := benchlw.New(n)
	for _, impl := range benchImpls {
		b.Run(fmt.Sprintf("objects=%d/%s", n, impl.name), func(b *testing.B) {
			var perObject float64
			for b.Loop() {
				fresh := benchlw.Of(lw.Pods())
				before := heapInUse()
				inf := impl.make(fresh)
				h := benchlw.NewCounter(n)
				if _, err := inf.AddEventHandler(h); err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				stopped := make(chan struct{})
				go func() {
					defer close(stopped)
					inf.RunWithContext(ctx)
				}()
				<-h.Done()
				cache.WaitForCacheSync(nil, inf.HasSynced)
				perObject = float64(heapInUse()-before) / n
				goruntime.KeepAlive(inf)
				cancel()
				<-stopped
			}
			b.ReportMetric(perObject, "B/object")
		})
	}
}

// settle collects the previous iteration's garbage outside the timer, so
// each variant is measured on its own work rather than on what ran before.
func settle(b *testing.B) {
	b.StopTimer()
	goruntime.GC()
	b.StartTimer()
}

func heapInUse() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// deliverAll runs inf with handlers counting handlers over lw's initial
// objects and events pushed after them, until every handler saw every one.
func deliverAll(b *testing.B, inf cache.SharedIndexInformer, lw *benchlw.PodLW, handlers, initial, events int) {
	all := make(chan struct{})
	var wg sync.WaitGroup
	for range handlers {
		h := benchlw.NewCounter(initial + events)
		if _, err := inf.AddEventHandler(h); err != nil {
			b.Fatal(err)
		}
		wg.Go(func() { <-h.Done() })
	}
	go func() {
		wg.Wait()
		close(all)
	}()
	go lw.Push(events)
	runUntil(inf, all)
}
