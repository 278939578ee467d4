package tui

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"

	"k8s.io/apimachinery/pkg/util/wait"
)

// TestQueueDetailOverARealEngine opens the Queue detail over a real,
// paused informer: the initial list of three pods and two updates of
// ns-0/pod-0 (RV 4 and 7) sit in the queue, nothing is cached yet.
func TestQueueDetailOverARealEngine(t *testing.T) {
	cases := []struct {
		kind   source.QueueKind
		queued int // deltas queued for ns-0/pod-0
		want   []string
	}{
		{source.DeltaFIFO, 3, []string{
			"key ns-0/pod-0 · DeltaFIFO",
			"now not in the cache",
			"   N DELTA       OBJECT IF POPPED NOW",
			"   1 Replaced    RV 1   Add, then OnAdd",
			"   2 Updated     RV 4   Update, then OnUpdate",
			"   3 Updated     RV 7   Update, then OnUpdate",
			"DeltaFIFO keeps one queue position per key: these deltas leave together, oldest first.",
		}},
		// The atomic relist is one keyless ReplacedAll ahead of the updates.
		{source.RealFIFO, 2, []string{
			"key ns-0/pod-0 · RealFIFO",
			"now not in the cache",
			"⚠ the ReplacedAll at #1 goes first and changes the cache; predicted from the cache as it is now",
			"   N DELTA       OBJECT IF POPPED NOW",
			"   1 Updated     RV 4   Add, then OnAdd",
			"   2 Updated     RV 7   Update, then OnUpdate",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.kind.String(), func(t *testing.T) {
			lw := &uiBenchLW{list: uiBenchPods(3), ready: make(chan struct{})}
			src, inf := newLocalInformer(t, lw, tc.kind)
			inf.SetPaused(true) // nothing is popped: the list and the updates stay queued
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			defer func() {
				cancel()
				wg.Wait()
			}()
			wg.Go(func() { inf.RunWithContext(ctx) })
			wg.Go(func() { lw.push(ctx, 6) }) // pod-0, 1, 2, 0, 1, 2 at RV 4…9
			err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
				return len(inf.QueueDeltas("ns-0/pod-0")) == tc.queued && inf.Snapshot().Reflector.WatchModified == 6, nil
			})
			if err != nil {
				t.Fatalf("the queue never held the updates: %v (queued %v)", err, inf.QueueDeltas("ns-0/pod-0"))
			}

			h := newHarness(t, src)
			h.size(120, 30)
			h.send(fetchData(src, 0, time.Now()))
			h.keys("2", "/", "p", "o", "d", "-", "0", "enter", "enter")
			assertLinesInOrder(t, h.screen(), tc.want)
		})
	}
}
