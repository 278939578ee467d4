package fifo

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
)

// rfDefaultOpts are the options client-go v0.37's default informer uses.
func rfDefaultOpts() cache.RealFIFOOptions {
	return cache.RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true}
}

func rfNoErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// rfDrain pops with PopBatch until the queue is empty.
func rfDrain(t testing.TB, f *RealFIFO) []rfPopped {
	t.Helper()
	c := &rfConsumer{}
	for f.rfLen() > 0 {
		rfNoErr(t, c.popBatch(f))
	}
	return c.got
}

func rfPops(t testing.TB, f *RealFIFO, n int) []rfPopped {
	t.Helper()
	c := &rfConsumer{}
	for i := 0; i < n; i++ {
		rfRequireQueued(t, f)
		rfNoErr(t, c.pop(f))
	}
	return c.got
}

func rfEqualPopped(t testing.TB, got, want []rfPopped) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("handed over:\n got  %v\n want %v", got, want)
	}
}

func TestRealFIFOArrivalOrderNoCoalescing(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	rfNoErr(t, f.Add(rfPod("a", "1")))
	rfNoErr(t, f.Update(rfPod("a", "2")))
	rfNoErr(t, f.Add(rfPod("b", "3")))
	rfNoErr(t, f.Delete(rfPod("a", "2")))
	rfNoErr(t, f.Update(rfPod("b", "4")))
	rfNoErr(t, f.Add(rfPod("a", "5")))

	var returned []string
	c := &rfConsumer{}
	for i := 0; i < 6; i++ {
		rfRequireQueued(t, f)
		obj, err := f.Pop(c.single("pop"))
		rfNoErr(t, err)
		returned = append(returned, rfDescAll(obj.(cache.Deltas))...)
	}
	want := []string{"Added ns/a@1", "Updated ns/a@2", "Added ns/b@3", "Deleted ns/a@2", "Updated ns/b@4", "Added ns/a@5"}
	rfEqual(t, "Pop return values", returned, want)
	var handed []string
	for _, p := range c.got {
		if p.Initial {
			t.Fatalf("%v: an Add came first, so nothing is in the initial list", p)
		}
		handed = append(handed, p.Deltas...)
	}
	rfEqual(t, "handed to process", handed, want)
}

func TestRealFIFOReplaceAtomic(t *testing.T) {
	t.Run("after events", func(t *testing.T) {
		opts := rfDefaultOpts()
		opts.Transformer = rfTransform
		f := NewRealFIFO(opts)
		rfNoErr(t, f.Add(rfPod("x", "1")))
		rfNoErr(t, f.Replace([]interface{}{rfPod("a", "2"), rfPod("b", "3")}, "10"))
		rfNoErr(t, f.Replace([]interface{}{}, "11"))
		rfEqual(t, "queued", f.rfQueued(), []string{"Added ns/x@1+t", "ReplacedAll 10[ns/a@2+t ns/b@3+t]", "ReplacedAll 11[]"})
		rfEqualPopped(t, rfDrain(t, f), []rfPopped{
			{"single", false, []string{"Added ns/x@1+t"}},
			{"single", false, []string{"ReplacedAll 10[ns/a@2+t ns/b@3+t]"}},
			{"single", false, []string{"ReplacedAll 11[]"}},
		})
	})
	t.Run("first list is the initial population", func(t *testing.T) {
		f := NewRealFIFO(rfDefaultOpts())
		rfNoErr(t, f.Replace([]interface{}{rfPod("a", "1")}, "5"))
		rfNoErr(t, f.Add(rfPod("b", "6")))
		if f.HasSynced() {
			t.Fatal("synced before the list was processed")
		}
		rfEqualPopped(t, rfPops(t, f, 2), []rfPopped{
			{"pop", true, []string{"ReplacedAll 5[ns/a@1]"}},
			{"pop", false, []string{"Added ns/b@6"}},
		})
	})
	t.Run("transform error queues nothing", func(t *testing.T) {
		opts := rfDefaultOpts()
		opts.Transformer = rfTransform
		f := NewRealFIFO(opts)
		bad := rfPod("bad", "2")
		bad.Labels = map[string]string{"rf-bad": "yes"}
		if err := f.Replace([]interface{}{rfPod("a", "1"), bad}, "3"); !errors.Is(err, errRfTransform) {
			t.Fatalf("Replace error %v, want the transformer's", err)
		}
		if q := f.rfQueued(); len(q) != 0 {
			t.Fatalf("queued %q", q)
		}
		f.lock.Lock()
		populated := f.populated
		f.lock.Unlock()
		if populated {
			t.Fatal("a failed Replace populated the queue")
		}
	})
}

func TestRealFIFOReplaceNonAtomicTombstones(t *testing.T) {
	known := rfNewKnown(rfPod("k1", "1"), rfPod("k2", "1"), rfPod("k3", "1"))
	known.ghosts["ns/ghost"] = true // listed without an object: tombstone with nil Obj
	f := NewRealFIFO(cache.RealFIFOOptions{KnownObjects: known, Transformer: rfTransform})
	rfNoErr(t, f.Update(rfPod("k1", "2")))
	rfNoErr(t, f.Add(rfPod("k4", "1")))
	rfNoErr(t, f.Delete(rfPod("k5", "1")))
	rfNoErr(t, f.Add(rfPod("k6", "1")))
	rfNoErr(t, f.Delete(rfPod("k6", "1")))
	rfNoErr(t, f.Add(rfPod("k6", "2")))
	rfNoErr(t, f.Replace([]interface{}{rfPod("k2", "3"), rfPod("k7", "1")}, "20"))

	rfEqual(t, "queued", f.rfQueued(), []string{
		"Updated ns/k1@2+t",
		"Added ns/k4@1+t",
		"Deleted ns/k5@1+t",
		"Added ns/k6@1+t",
		"Deleted ns/k6@1+t",
		"Added ns/k6@2+t",
		// queued keys missing from the list, with their newest queued object;
		// k5's last delta is already a delete
		"Deleted tomb(ns/k1 ns/k1@2+t)",
		"Deleted tomb(ns/k4 ns/k4@1+t)",
		"Deleted tomb(ns/k6 ns/k6@2+t)",
		// known-only keys, with the stored object, untransformed
		"Deleted tomb(ns/ghost nil)",
		"Deleted tomb(ns/k3 ns/k3@1)",
		"Replaced ns/k2@3+t",
		"Replaced ns/k7@1+t",
	})
	if !f.HasSynced() {
		t.Fatal("an Update came before the Replace, so the queue is synced")
	}
}

func TestRealFIFOReplaceNonAtomicInitialList(t *testing.T) {
	known := rfNewKnown(rfPod("gone", "1"))
	f := NewRealFIFO(cache.RealFIFOOptions{KnownObjects: known})
	rfNoErr(t, f.Replace([]interface{}{rfPod("a", "2"), rfPod("b", "2")}, "2"))
	rfNoErr(t, f.Add(rfPod("c", "3")))
	steps := []struct {
		popped rfPopped
		synced bool
	}{
		{rfPopped{"pop", true, []string{"Deleted tomb(ns/gone ns/gone@1)"}}, false},
		{rfPopped{"pop", true, []string{"Replaced ns/a@2"}}, false},
		{rfPopped{"pop", true, []string{"Replaced ns/b@2"}}, true},
		{rfPopped{"pop", false, []string{"Added ns/c@3"}}, true},
	}
	for i, s := range steps {
		rfEqualPopped(t, rfPops(t, f, 1), []rfPopped{s.popped})
		if got := f.HasSynced(); got != s.synced {
			t.Fatalf("after pop %d HasSynced=%v, want %v", i+1, got, s.synced)
		}
	}
}

func TestRealFIFOResync(t *testing.T) {
	t.Run("atomic SyncAll", func(t *testing.T) {
		f := NewRealFIFO(rfDefaultOpts())
		rfNoErr(t, f.Resync())
		if f.HasSynced() {
			t.Fatal("Resync populated the queue")
		}
		rfNoErr(t, f.Add(rfPod("a", "1")))
		rfNoErr(t, f.Resync())
		rfEqualPopped(t, rfDrain(t, f), []rfPopped{
			{"single", false, []string{"SyncAll"}},
			{"single", false, []string{"Added ns/a@1"}},
			{"single", false, []string{"SyncAll"}},
		})
	})
	t.Run("per key, skipping queued keys", func(t *testing.T) {
		known := rfNewKnown(rfPod("k1", "1"), rfPod("k2", "1"), rfPod("k3", "1"))
		known.ghosts["ns/ghost"] = true // no object: skipped
		f := NewRealFIFO(cache.RealFIFOOptions{KnownObjects: known, Transformer: rfTransform})
		rfNoErr(t, f.Update(rfPod("k2", "2")))
		rfNoErr(t, f.Resync())
		// Sync objects come from the store as they are: no second transform.
		rfEqual(t, "queued", f.rfQueued(), []string{"Updated ns/k2@2+t", "Sync ns/k1@1", "Sync ns/k3@1"})
		rfEqualPopped(t, rfDrain(t, f), []rfPopped{
			{"batch", false, []string{"Updated ns/k2@2+t", "Sync ns/k1@1", "Sync ns/k3@1"}},
		})
	})
}

func TestRealFIFOBookmarks(t *testing.T) {
	t.Run("queued in order, not population", func(t *testing.T) {
		f := NewRealFIFO(rfDefaultOpts())
		rfNoErr(t, f.Bookmark("4"))
		if f.HasSynced() {
			t.Fatal("a bookmark populated the queue")
		}
		rfNoErr(t, f.Replace([]interface{}{rfPod("a", "5")}, "5"))
		rfNoErr(t, f.Add(rfPod("b", "6")))
		rfNoErr(t, f.Bookmark("7"))
		rfNoErr(t, f.Add(rfPod("c", "8")))
		// The bookmark queued before the list belongs to the initial population.
		want := []struct {
			popped rfPopped
			synced bool
		}{
			{rfPopped{"single", true, []string{"Bookmark 4"}}, false},
			{rfPopped{"single", true, []string{"ReplacedAll 5[ns/a@5]"}}, true},
			{rfPopped{"single", false, []string{"Added ns/b@6"}}, true},
			{rfPopped{"single", false, []string{"Bookmark 7"}}, true},
			{rfPopped{"single", false, []string{"Added ns/c@8"}}, true},
		}
		for i, w := range want {
			c := &rfConsumer{}
			rfRequireQueued(t, f)
			rfNoErr(t, c.popBatch(f))
			rfEqualPopped(t, c.got, []rfPopped{w.popped})
			if f.HasSynced() != w.synced {
				t.Fatalf("after pop %d HasSynced=%v", i+1, !w.synced)
			}
		}
	})
	t.Run("off", func(t *testing.T) {
		opts := rfDefaultOpts()
		opts.EmitDeltaTypeBookmark = false
		f := NewRealFIFO(opts)
		rfNoErr(t, f.Bookmark("4"))
		if n := f.rfLen(); n != 0 {
			t.Fatalf("bookmark queued %d items", n)
		}
	})
}

func TestRealFIFOPopBatchSizeLimit(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	var want []string
	for i := 0; i < 2500; i++ {
		p := rfPod("p"+strconv.Itoa(i), "1")
		want = append(want, "Added ns/"+p.Name+"@1")
		rfNoErr(t, f.Add(p))
	}
	got := rfDrain(t, f)
	var sizes []int
	var all []string
	for _, p := range got {
		if p.Via != "batch" || p.Initial {
			t.Fatalf("hand-over %s initial=%v", p.Via, p.Initial)
		}
		sizes = append(sizes, len(p.Deltas))
		all = append(all, p.Deltas...)
	}
	if fmt.Sprint(sizes) != "[1000 1000 500]" {
		t.Fatalf("batch sizes %v, want [1000 1000 500]", sizes)
	}
	rfEqual(t, "order across batches", all, want)
}

func TestRealFIFOPopBatchUniqueKeys(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	for _, p := range [][2]string{{"a", "1"}, {"b", "2"}, {"a", "3"}, {"c", "4"}, {"c", "5"}} {
		rfNoErr(t, f.Add(rfPod(p[0], p[1])))
	}
	rfEqualPopped(t, rfDrain(t, f), []rfPopped{
		{"batch", false, []string{"Added ns/a@1", "Added ns/b@2"}},
		{"batch", false, []string{"Added ns/a@3", "Added ns/c@4"}},
		{"single", false, []string{"Added ns/c@5"}},
	})
}

func TestRealFIFOPopBatchAtomicItemsGoAlone(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	rfNoErr(t, f.Add(rfPod("a", "1")))
	rfNoErr(t, f.Delete(rfPod("b", "2")))
	rfNoErr(t, f.Bookmark("3"))
	rfNoErr(t, f.Resync())
	rfNoErr(t, f.Update(rfPod("c", "4")))
	rfNoErr(t, f.Replace([]interface{}{rfPod("c", "5")}, "5"))
	rfNoErr(t, f.Update(rfPod("c", "6")))
	rfNoErr(t, f.Update(rfPod("d", "7")))
	rfEqualPopped(t, rfDrain(t, f), []rfPopped{
		{"batch", false, []string{"Added ns/a@1", "Deleted ns/b@2"}},
		{"single", false, []string{"Bookmark 3"}},
		{"single", false, []string{"SyncAll"}},
		{"single", false, []string{"Updated ns/c@4"}},
		{"single", false, []string{"ReplacedAll 5[ns/c@5]"}},
		{"batch", false, []string{"Updated ns/c@6", "Updated ns/d@7"}},
	})
}

func TestRealFIFOPopBatchInitialListBoundary(t *testing.T) {
	f := NewRealFIFO(cache.RealFIFOOptions{KnownObjects: rfNewKnown()})
	var list []interface{}
	for i := 0; i < 1500; i++ {
		list = append(list, rfPod("p"+strconv.Itoa(i), "1"))
	}
	rfNoErr(t, f.Replace(list, "1"))
	rfNoErr(t, f.Add(rfPod("x", "2")))
	rfNoErr(t, f.Add(rfPod("y", "3")))

	c := &rfConsumer{}
	var synced []bool
	for f.rfLen() > 0 {
		rfNoErr(t, c.popBatch(f))
		synced = append(synced, f.HasSynced())
	}
	var shape []string
	for _, p := range c.got {
		shape = append(shape, fmt.Sprintf("%s/%v/%d", p.Via, p.Initial, len(p.Deltas)))
	}
	rfEqual(t, "batches", shape, []string{"batch/true/1000", "batch/true/500", "batch/false/2"})
	if fmt.Sprint(synced) != "[false true true]" {
		t.Fatalf("HasSynced after each batch %v, want [false true true]", synced)
	}
	rfEqual(t, "last batch", c.got[2].Deltas, []string{"Added ns/x@2", "Added ns/y@3"})
}

func TestRealFIFOHasSyncedAfterLastInitialItemProcessed(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	rfNoErr(t, f.Replace([]interface{}{rfPod("a", "1")}, "1"))
	checker := f.HasSyncedChecker()
	if checker.Name() != "RealFIFO" {
		t.Fatalf("checker name %q", checker.Name())
	}
	rfRequireQueued(t, f)
	_, err := f.Pop(func(obj interface{}, initial bool) error {
		// The lock is released while processing, so this does not deadlock.
		if f.HasSynced() || cache.IsDone(checker) || !initial {
			t.Errorf("during processing: HasSynced=%v done=%v initial=%v", f.HasSynced(), cache.IsDone(checker), initial)
		}
		return nil
	})
	rfNoErr(t, err)
	if !f.HasSynced() || !cache.IsDone(checker) {
		t.Fatal("not synced after the initial list was processed")
	}
}

// TestRealFIFOHasSyncedAfterLastInitialBatchProcessed is the PopBatch side
// of the test above, for both ways the initial list can be handed over.
func TestRealFIFOHasSyncedAfterLastInitialBatchProcessed(t *testing.T) {
	cases := []struct {
		name string
		opts cache.RealFIFOOptions
		want []rfPopped
	}{
		{"atomic: ReplacedAll through processSingle", rfDefaultOpts(),
			[]rfPopped{{"single", true, []string{"ReplacedAll 1[ns/a@1 ns/b@1]"}}}},
		{"non-atomic: Replaced deltas through processBatch", cache.RealFIFOOptions{KnownObjects: rfNewKnown()},
			[]rfPopped{{"batch", true, []string{"Replaced ns/a@1", "Replaced ns/b@1"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewRealFIFO(tc.opts)
			rfNoErr(t, f.Replace([]interface{}{rfPod("a", "1"), rfPod("b", "1")}, "1"))
			// Done is read rather than HasSynced: without UnlockWhileProcessing
			// the lock is held while processing.
			done := f.HasSyncedChecker().Done()
			c := &rfConsumer{check: func(via string, _ bool, _ []cache.Delta) {
				select {
				case <-done:
					t.Errorf("%s: synced while the last initial item was being processed", via)
				default:
				}
			}}
			rfRequireQueued(t, f)
			rfNoErr(t, c.popBatch(f))
			rfEqualPopped(t, c.got, tc.want)
			if !f.HasSynced() {
				t.Fatal("not synced after the initial list was processed")
			}
		})
	}
}

func TestRealFIFOProcessPanicKeepsQueueConsistent(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	rfNoErr(t, f.Replace(nil, "1"))
	rfRequireQueued(t, f)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v", r)
			}
		}()
		_ = f.PopBatch(nil, func(interface{}, bool) error { panic("boom") })
	}()
	if !f.HasSynced() {
		t.Fatal("the panicking item still counts as processed, as in client-go")
	}
	rfNoErr(t, f.Add(rfPod("a", "2"))) // the lock was released
	rfEqualPopped(t, rfPops(t, f, 1), []rfPopped{{"pop", false, []string{"Added ns/a@2"}}})
}

// rfPanickingKnown is a KnownObjects store that panics when read.
type rfPanickingKnown struct{}

func (rfPanickingKnown) ListKeys() []string { panic("known objects exploded") }
func (rfPanickingKnown) GetByKey(string) (interface{}, bool, error) {
	panic("known objects exploded")
}

// TestRealFIFOPanicInCallerCodeLeavesQueueUnlocked: the reflector recovers
// a panic from the transformer (or the consumer's store) and retries, so the
// queue must come out of it unlocked, or every later call deadlocks.
func TestRealFIFOPanicInCallerCodeLeavesQueueUnlocked(t *testing.T) {
	panicky := func(interface{}) (interface{}, error) { panic("transform exploded") }
	atomicOpts := rfDefaultOpts()
	atomicOpts.Transformer = panicky
	replace := func(f *RealFIFO) error { return f.Replace([]interface{}{rfPod("a", "1")}, "1") }
	cases := []struct {
		name string
		opts cache.RealFIFOOptions
		op   func(f *RealFIFO) error
	}{
		{"atomic Replace", atomicOpts, replace},
		{"non-atomic Replace", cache.RealFIFOOptions{KnownObjects: rfNewKnown(), Transformer: panicky}, replace},
		{"non-atomic Resync", cache.RealFIFOOptions{KnownObjects: rfPanickingKnown{}}, (*RealFIFO).Resync},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewRealFIFO(tc.opts)
			func() {
				defer func() {
					if recover() == nil {
						t.Fatal("no panic reached the caller")
					}
				}()
				_ = tc.op(f)
			}()
			if !f.lock.TryLock() {
				t.Fatal("the queue stayed locked after the panic")
			}
			f.lock.Unlock()
		})
	}
}

func TestRealFIFOProcessErrorReturned(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	boom := errors.New("boom")
	rfNoErr(t, f.Add(rfPod("a", "1")))
	rfNoErr(t, f.Add(rfPod("b", "1")))
	rfNoErr(t, f.Add(rfPod("a", "2")))
	var batch []string
	rfRequireQueued(t, f)
	if err := f.PopBatch(func(ds []cache.Delta, _ bool) error { batch = rfDescAll(ds); return boom }, nil); err != boom {
		t.Fatalf("PopBatch error %v", err)
	}
	rfEqual(t, "batch", batch, []string{"Added ns/a@1", "Added ns/b@1"})
	rfRequireQueued(t, f)
	obj, err := f.Pop(func(interface{}, bool) error { return boom })
	if err != boom {
		t.Fatalf("Pop error %v", err)
	}
	rfEqual(t, "Pop returns the item even on error", rfDescAll(obj.(cache.Deltas)), []string{"Added ns/a@2"})
}

func TestRealFIFOUnlockWhileProcessing(t *testing.T) {
	// heldDuringPop reports whether the queue's lock was held while process ran,
	// with n items queued before the pop.
	heldDuringPop := func(t *testing.T, opts cache.RealFIFOOptions, n int) bool {
		f := NewRealFIFO(opts)
		for i := 0; i < n; i++ {
			rfNoErr(t, f.Add(rfPod("p"+strconv.Itoa(i), "1")))
		}
		var held bool
		rfRequireQueued(t, f)
		_, err := f.Pop(func(interface{}, bool) error {
			held = !f.lock.TryLock()
			if !held {
				f.lock.Unlock()
			}
			return nil
		})
		rfNoErr(t, err)
		return held
	}
	nonAtomic := cache.RealFIFOOptions{KnownObjects: rfNewKnown()}
	atomicLocked := rfDefaultOpts()
	atomicLocked.UnlockWhileProcessing = false
	cases := []struct {
		name string
		opts cache.RealFIFOOptions
		n    int
		held bool
	}{
		{"unlock", rfDefaultOpts(), 1, false},
		{"unlock, 1999 left behind", rfDefaultOpts(), 2000, false},
		{"unlock, two batches left behind keep the lock", rfDefaultOpts(), 2001, true},
		{"atomic without unlock", atomicLocked, 1, true},
		{"non-atomic", nonAtomic, 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := heldDuringPop(t, c.opts, c.n); got != c.held {
				t.Fatalf("lock held during processing: %v, want %v", got, c.held)
			}
		})
	}

	t.Run("producer adds while a batch is processed", func(t *testing.T) {
		f := NewRealFIFO(rfDefaultOpts())
		rfNoErr(t, f.Add(rfPod("a", "1")))
		rfNoErr(t, f.Add(rfPod("b", "1")))
		rfRequireQueued(t, f)
		err := f.PopBatch(func([]cache.Delta, bool) error {
			// Checked first: with the lock held, the Add below would
			// deadlock the test instead of failing it.
			if !f.lock.TryLock() {
				return errors.New("the lock is held while the batch is processed")
			}
			f.lock.Unlock()
			added := make(chan error, 1)
			go func() { added <- f.Add(rfPod("c", "2")) }()
			return <-added
		}, nil)
		rfNoErr(t, err)
		rfEqual(t, "queued", f.rfQueued(), []string{"Added ns/c@2"})
	})
}

func TestRealFIFOCloseDrains(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	rfNoErr(t, f.Add(rfPod("a", "1")))
	rfNoErr(t, f.Add(rfPod("a", "2")))
	f.Close()
	if !f.IsClosed() || !f.Stats(0).Closed {
		t.Fatal("not closed")
	}
	c := &rfConsumer{}
	rfNoErr(t, c.pop(f))
	rfNoErr(t, c.popBatch(f))
	rfEqualPopped(t, c.got, []rfPopped{
		{"pop", false, []string{"Added ns/a@1"}},
		{"single", false, []string{"Added ns/a@2"}},
	})
	if obj, err := f.Pop(c.single("pop")); obj != nil || !errors.Is(err, cache.ErrFIFOClosed) {
		t.Fatalf("Pop on closed empty queue: %v, %v", obj, err)
	}
	if err := c.popBatch(f); !errors.Is(err, cache.ErrFIFOClosed) {
		t.Fatalf("PopBatch on closed empty queue: %v", err)
	}
	if len(c.got) != 2 {
		t.Fatalf("handed over after close: %v", c.got[2:])
	}
}

func TestRealFIFOPopWaitsForAddOrClose(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	type result struct {
		got []rfPopped
		err error
	}
	results := make(chan result, 2)
	waiter := func() {
		c := &rfConsumer{}
		err := c.popBatch(f)
		results <- result{c.got, err}
	}
	go waiter()
	go waiter()
	waitForBlockedPops(t, "(*RealFIFO).PopBatch", 2)
	rfNoErr(t, f.Add(rfPod("a", "1")))
	first := awaitWakeUp(t, results, "Add")
	rfNoErr(t, first.err)
	rfEqualPopped(t, first.got, []rfPopped{{"single", false, []string{"Added ns/a@1"}}})
	f.Close()
	if second := awaitWakeUp(t, results, "Close"); !errors.Is(second.err, cache.ErrFIFOClosed) || len(second.got) != 0 {
		t.Fatalf("waiting PopBatch after Close: %v, %v", second.got, second.err)
	}
}

func TestRealFIFOStats(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ticks := 0
	f := NewRealFIFO(rfDefaultOpts())
	f.now = func() time.Time { ticks++; return base.Add(time.Duration(ticks) * time.Second) }
	at := func(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }

	rfNoErr(t, f.Add(rfPod("a", "1")))
	rfNoErr(t, f.Update(rfPod("a", "2")))
	rfNoErr(t, f.Add(rfPod("b", "3")))
	rfNoErr(t, f.Bookmark("4"))
	rfNoErr(t, f.Resync())
	rfNoErr(t, f.Replace([]interface{}{rfPod("a", "5")}, "5"))
	rfNoErr(t, f.Delete(rfPod("b", "3")))

	s := f.Stats(3)
	want := Stats{
		Kind: KindRealFIFO, Depth: 7, Deltas: 7, OldestEnqueued: at(1),
		Added:  TypeCounts{Added: 2, Updated: 1, Deleted: 1, Replaced: 1, Sync: 1, Bookmark: 1},
		Synced: true,
		Head: []Item{
			{Key: "ns/a", Types: []cache.DeltaType{cache.Added}, Enqueued: at(1)},
			{Key: "ns/a", Types: []cache.DeltaType{cache.Updated}, Enqueued: at(2)},
			{Key: "ns/b", Types: []cache.DeltaType{cache.Added}, Enqueued: at(3)},
		},
	}
	if fmt.Sprintf("%+v", s) != fmt.Sprintf("%+v", rfStatsUTC(want)) {
		t.Fatalf("Stats(3):\n got  %+v\n want %+v", rfStatsUTC(s), want)
	}
	if h := f.Stats(0).Head; h != nil {
		t.Fatalf("Stats(0) head %v", h)
	}
	if h := f.Stats(100).Head; len(h) != 7 || h[3].Key != "" || h[3].Types[0] != cache.Bookmark ||
		h[4].Types[0] != cache.SyncAll || h[5].Types[0] != cache.ReplacedAll || h[6].Key != "ns/b" {
		t.Fatalf("Stats(100) head %+v", h)
	}
	rfEqual(t, "Deltas(ns/a)", rfDescAll(f.Deltas("ns/a")), []string{"Added ns/a@1", "Updated ns/a@2"})
	if d := f.Deltas("ns/none"); d != nil {
		t.Fatalf("Deltas of an absent key: %v", d)
	}
	if d := f.Deltas(""); d != nil {
		t.Fatalf("Deltas of the empty key: %v", d)
	}

	rfDrain(t, f) // [a] [a b] bookmark syncall replacedall [b]
	s = f.Stats(3)
	if s.Depth != 0 || s.Deltas != 0 || !s.OldestEnqueued.IsZero() || s.Head != nil || s.Pops != 7 || s.Popped != s.Added {
		t.Fatalf("after drain: %+v", s)
	}
}

// rfStatsUTC makes times print alike whatever zone time.Unix gives them.
func rfStatsUTC(s Stats) Stats {
	s.OldestEnqueued = s.OldestEnqueued.UTC()
	for i := range s.Head {
		s.Head[i].Enqueued = s.Head[i].Enqueued.UTC()
	}
	return s
}

func TestRealFIFOKeyAndTransformErrors(t *testing.T) {
	opts := rfDefaultOpts()
	opts.Transformer = rfTransform
	f := NewRealFIFO(opts)
	var keyErr cache.KeyError
	if err := f.Add("no-metadata"); !errors.As(err, &keyErr) {
		t.Fatalf("Add of an object without metadata: %v", err)
	}
	if !f.HasSynced() {
		t.Fatal("an Add marks the queue populated even when it fails, as in client-go")
	}
	bad := rfPod("bad", "1")
	bad.Labels = map[string]string{"rf-bad": "yes"}
	if err := f.Update(bad); !errors.Is(err, errRfTransform) {
		t.Fatalf("Update with a refusing transformer: %v", err)
	}
	rfNoErr(t, f.Delete(cache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: bad}))
	// Tombstones are never transformed, and keyed by their recorded key.
	rfEqual(t, "queued", f.rfQueued(), []string{"Deleted tomb(ns/gone ns/bad@1)"})
	if d := f.Deltas("ns/gone"); len(d) != 1 {
		t.Fatalf("Deltas(ns/gone) = %v", d)
	}
}

func TestRealFIFOOptionsValidation(t *testing.T) {
	known := rfNewKnown()
	cases := []struct {
		name  string
		opts  cache.RealFIFOOptions
		panic bool
	}{
		{"defaults", rfDefaultOpts(), false},
		{"non-atomic with known objects", cache.RealFIFOOptions{KnownObjects: known}, false},
		{"atomic with known objects", cache.RealFIFOOptions{AtomicEvents: true, KnownObjects: known}, true},
		{"non-atomic without known objects", cache.RealFIFOOptions{}, true},
		{"unlock without atomic", cache.RealFIFOOptions{KnownObjects: known, UnlockWhileProcessing: true}, true},
		{"bookmarks without atomic", cache.RealFIFOOptions{KnownObjects: known, EmitDeltaTypeBookmark: true}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				NewRealFIFO(c.opts)
				return false
			}()
			if panicked != c.panic {
				t.Fatalf("panicked=%v, want %v", panicked, c.panic)
			}
		})
	}
	opts := rfDefaultOpts()
	opts.Name = "RealFIFO *v1.Pod"
	if n := NewRealFIFO(opts).Name(); n != opts.Name {
		t.Fatalf("Name() = %q", n)
	}
}

func TestRealFIFOConcurrentProducerConsumer(t *testing.T) {
	f := NewRealFIFO(rfDefaultOpts())
	const n = 3000
	produced := make(chan error, 1)
	go func() {
		err := func() error {
			for i := 0; i < n; i++ {
				if err := f.Add(rfPod("p"+strconv.Itoa(i%7), strconv.Itoa(i))); err != nil {
					return err
				}
			}
			return nil
		}()
		// Closing turns a lost item into ErrFIFOClosed from PopBatch
		// instead of a PopBatch that blocks the test forever.
		f.Close()
		produced <- err
	}()
	c := &rfConsumer{}
	for seen := 0; seen < n; {
		rfNoErr(t, c.popBatch(f))
		seen += len(c.got[len(c.got)-1].Deltas)
	}
	rfNoErr(t, <-produced)
	next := 0
	for _, p := range c.got {
		for _, d := range p.Deltas {
			if want := fmt.Sprintf("Added ns/p%d@%d", next%7, next); d != want {
				t.Fatalf("item %d is %q, want %q", next, d, want)
			}
			next++
		}
	}
	if s := f.Stats(0); s.Pops != n || s.Depth != 0 {
		t.Fatalf("stats after run: %+v", s)
	}
}

// TestRealFIFOMatchesClientGo runs one scripted informer life on ours and on
// client-go's RealFIFO with each supported option combination and checks
// every hand-over, error, queue content and sync state is the same.
func TestRealFIFOMatchesClientGo(t *testing.T) {
	script := []rfOp{
		{rfOpBookmark, 0}, {rfOpReplace, 0x07}, {rfOpAdd, 3}, {rfOpPopBatch, 0}, {rfOpUpdate, 3},
		{rfOpPopBatch, 0}, {rfOpUpdate, 1}, {rfOpUpdate, 1}, {rfOpDelete, 2}, {rfOpResync, 0},
		{rfOpPop, 0}, {rfOpPopBatch, 0}, {rfOpReplace, 0x09}, {rfOpDeleteTomb, 0}, {rfOpBookmark, 0},
		{rfOpPopBatch, 0}, {rfOpAdd, 2}, {rfOpAddBadKey, 0}, {rfOpReplace, 0x23}, {rfOpResync, 0},
		{rfOpPopBatch, 0}, {rfOpPopBatch, 0}, {rfOpAddRefused, 1}, {rfOpReplace, 0x1e}, {rfOpPop, 0},
	}
	configs := map[string]rfConfig{
		"client-go default":        {atomic: true, unlock: true, bookmarks: true, batchSize: realBatchSize},
		"atomic, locked":           {atomic: true, batchSize: realBatchSize, transform: true},
		"non-atomic":               {batchSize: realBatchSize},
		"non-atomic, transform":    {transform: true, batchSize: realBatchSize},
		"non-atomic, batches of 2": {batchSize: 2},
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			d := rfNewDiff(t, cfg)
			for _, op := range script {
				d.do(op)
			}
			d.finish()
		})
	}
}

func TestRealDequeAcrossBlocks(t *testing.T) {
	var q realDeque
	for i := 0; i < 3*realBlockSize+10; i++ {
		q.push(realItem{key: strconv.Itoa(i)})
	}
	q.drop(realBlockSize + 5)
	if q.len() != 2*realBlockSize+5 || q.at(0).key != strconv.Itoa(realBlockSize+5) || q.at(q.len()-1).key != strconv.Itoa(3*realBlockSize+9) {
		t.Fatalf("after first drop: len %d, first %q", q.len(), q.at(0).key)
	}
	if len(q.blocks) != 3 || q.head != 5 {
		t.Fatalf("blocks %d head %d: the emptied block was not released", len(q.blocks), q.head)
	}
	q.drop(q.len())
	if q.len() != 0 || len(q.blocks) != 0 || q.spare == nil {
		t.Fatalf("after draining: len %d blocks %d spare %v", q.len(), len(q.blocks), q.spare != nil)
	}
	for _, it := range q.spare {
		if it.key != "" {
			t.Fatal("a released block still references items")
		}
	}
	q.push(realItem{key: "again"})
	if q.at(0).key != "again" || q.len() != 1 {
		t.Fatalf("reuse: %q", q.at(0).key)
	}
}
