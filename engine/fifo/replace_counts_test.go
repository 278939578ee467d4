package fifo

import (
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// A list queued by Replace counts one Replaced delta per object in every
// queue, whether it is one ReplacedAll item (RealFIFO with AtomicEvents,
// client-go's default) or an item per object, so a 297-object list reads
// 297 added and 297 popped, not 1.
func TestReplaceCountsEveryObject(t *testing.T) {
	const n = 297
	list := func() []interface{} {
		out := make([]interface{}, n)
		for i := range out {
			out[i] = rfPod("p"+strconv.Itoa(i), strconv.Itoa(i+1))
		}
		return out
	}
	known := func() cache.KeyListerGetter { return cache.NewStore(cache.MetaNamespaceKeyFunc) }
	for _, tc := range []struct {
		name  string
		queue func() Instrumented
		items int // rows a list of n queues
	}{
		{"RealFIFO atomic", func() Instrumented { return NewRealFIFO(rfDefaultOpts()) }, 1},
		{"RealFIFO", func() Instrumented {
			return NewRealFIFO(cache.RealFIFOOptions{KnownObjects: known()})
		}, n},
		{"DeltaFIFO", func() Instrumented {
			return NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: known(), EmitDeltaTypeReplaced: true})
		}, n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.queue()
			defer q.Close()
			rfNoErr(t, q.Replace(list(), strconv.Itoa(n)))
			s := q.Stats(0)
			if want := (TypeCounts{Replaced: n}); s.Added != want || s.Depth != tc.items {
				t.Fatalf("after a Replace of %d: added %+v, depth %d; want added %+v, depth %d", n, s.Added, s.Depth, want, tc.items)
			}
			for q.Stats(0).Depth > 0 {
				if _, err := q.Pop(func(interface{}, bool) error { return nil }); err != nil {
					t.Fatal(err)
				}
			}
			if s := q.Stats(0); s.Popped != (TypeCounts{Replaced: n}) || s.Pops != uint64(tc.items) {
				t.Fatalf("after popping the list: popped %+v in %d pops; want %d replaced in %d", s.Popped, s.Pops, n, tc.items)
			}
		})
	}
}
