package fifo

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// TestDeltaFIFOMetrics: with a reserved identity the depth gauge counts
// rows (a delta joining a queued key changes nothing), every Pop that runs
// a process function is observed once, and the identity names the queue.
// Without a reserved identity, or without a provider, nothing is published.
func TestDeltaFIFOMetrics(t *testing.T) {
	n, err := cache.NewInformerName("df-metrics")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Release)
	id := n.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})

	run := func(f *DeltaFIFO) {
		for _, obj := range []*dfTestObj{dfObj("a", 1), dfObj("b", 1), dfObj("a", 2)} {
			if err := f.Add(obj); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Replace([]interface{}{dfObj("c", 1)}, "7"); err != nil { // c, tombstones for a and b
			t.Fatal(err)
		}
		for range 2 {
			if _, err := f.Pop(func(interface{}, bool) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.Pop(nil); err != nil { // nothing processed, nothing observed
			t.Fatal(err)
		}
	}
	named, anonymous := &rfMetrics{}, &rfMetrics{}
	f := NewDeltaFIFOWithMetrics(cache.DeltaFIFOOptions{Name: "ignored"}, id, named)
	if f.Name() != "df-metrics" {
		t.Fatalf("Name() = %q, want the identifier's name", f.Name())
	}
	run(f)
	if got := fmt.Sprint(named.queued); got != "[1 2 3 2 1 0]" || named.latencies != 2 {
		t.Fatalf("published queued %s and %d latencies, want [1 2 3 2 1 0] and 2", got, named.latencies)
	}

	run(NewDeltaFIFOWithMetrics(cache.DeltaFIFOOptions{}, cache.InformerNameAndResource{}, anonymous))
	duplicate := n.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	run(NewDeltaFIFOWithMetrics(cache.DeltaFIFOOptions{}, duplicate, anonymous))
	if len(anonymous.queued) != 0 || anonymous.latencies != 0 {
		t.Fatalf("an unreserved identity published %v and %d latencies", anonymous.queued, anonymous.latencies)
	}
	// Reserved but without a provider: still named, and runs without metrics.
	g := NewDeltaFIFOWithMetrics(cache.DeltaFIFOOptions{}, id, nil)
	run(g)
	if g.Name() != "df-metrics" {
		t.Fatalf("without a provider: name %q", g.Name())
	}
}
