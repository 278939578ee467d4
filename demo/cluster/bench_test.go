package cluster

import (
	"context"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/pager"
)

const benchPods = 50_000

// BenchmarkPopulate50kPods measures building a 50k-pod cluster and reports
// the heap it keeps per pod.
func BenchmarkPopulate50kPods(b *testing.B) {
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := New(Options{Seed: 1})
		if err := c.Populate(Pods, benchPods); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/benchPods, "heapB/pod")
		runtime.KeepAlive(c)
	}
}

// BenchmarkList50kPodsInPages measures a full paged LIST through
// client-go's pager, as a reflector's first list does.
func BenchmarkList50kPodsInPages(b *testing.B) {
	c := New(Options{Seed: 1})
	if err := c.Populate(Pods, benchPods); err != nil {
		b.Fatal(err)
	}
	lw := mustLW(b, c, Pods, Selector{})
	p := pager.New(lw.ListWithContext)
	for b.Loop() {
		list, _, err := p.List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
		if err != nil || meta.LenList(list) != benchPods {
			b.Fatalf("%v, %d items", err, meta.LenList(list))
		}
	}
}
