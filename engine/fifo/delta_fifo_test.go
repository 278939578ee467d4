package fifo

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
)

type dfD = cache.Delta

func TestDeltaFIFOInitialReplaceThenPopOrder(t *testing.T) {
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})
	a, b, c, d := dfObj("a", 1), dfObj("b", 1), dfObj("c", 1), dfObj("d", 1)
	if err := f.Replace([]interface{}{c, a, b}, "10"); err != nil {
		t.Fatal(err)
	}
	dfAssertKeys(t, f, dfKey("c"), dfKey("a"), dfKey("b"))
	if err := f.Add(d); err != nil {
		t.Fatal(err)
	}
	want := []dfPopped{
		{cache.Deltas{{Type: cache.Replaced, Object: c}}, true},
		{cache.Deltas{{Type: cache.Replaced, Object: a}}, true},
		{cache.Deltas{{Type: cache.Replaced, Object: b}}, true},
		{cache.Deltas{{Type: cache.Added, Object: d}}, false},
	}
	for i, w := range want {
		got := dfPop(t, f)
		dfAssertDeltas(t, "pop", got.deltas, w.deltas)
		if got.initial != w.initial {
			t.Fatalf("pop %d: isInInitialList = %v, want %v", i, got.initial, w.initial)
		}
	}
}

func TestDeltaFIFOCoalescesPerKeyAndKeepsPosition(t *testing.T) {
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	a1, a2, a3, b1 := dfObj("a", 1), dfObj("a", 2), dfObj("a", 3), dfObj("b", 1)
	for _, op := range []func() error{
		func() error { return f.Add(a1) },
		func() error { return f.Add(b1) },
		func() error { return f.Update(a2) },
		func() error { return f.Update(a3) },
	} {
		if err := op(); err != nil {
			t.Fatal(err)
		}
	}
	dfAssertKeys(t, f, dfKey("a"), dfKey("b"))
	dfAssertDeltas(t, "a", dfPop(t, f).deltas, cache.Deltas{
		{Type: cache.Added, Object: a1}, {Type: cache.Updated, Object: a2}, {Type: cache.Updated, Object: a3},
	})
	// Once popped, a key that comes back queues behind the keys still waiting.
	a4 := dfObj("a", 4)
	if err := f.Update(a4); err != nil {
		t.Fatal(err)
	}
	dfAssertKeys(t, f, dfKey("b"), dfKey("a"))
	if s := f.Stats(0); s.Coalesced != 2 || s.Depth != 2 || s.Deltas != 2 {
		t.Fatalf("Coalesced=%d Depth=%d Deltas=%d, want 2 2 2", s.Coalesced, s.Depth, s.Deltas)
	}
}

func TestDeltaFIFODedupsTwoTrailingDeletes(t *testing.T) {
	a1, a2 := dfObj("a", 1), dfObj("a", 2)
	tombA1, tombA2 := dfTomb("a", a1), dfTomb("a", a2)
	cases := []struct {
		name          string
		first, second interface{}
		keep          interface{}
	}{
		{"real then tombstone keeps the real delete", a1, tombA2, a1},
		{"tombstone then real keeps the real delete", tombA1, a2, a2},
		{"two tombstones keep the newer", tombA1, tombA2, tombA2},
		{"two real deletes keep the older", a1, a2, a1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: dfNewKnown(a1)})
			if err := f.Update(a1); err != nil {
				t.Fatal(err)
			}
			if err := f.Delete(tc.first); err != nil {
				t.Fatal(err)
			}
			if err := f.Delete(tc.second); err != nil {
				t.Fatal(err)
			}
			dfAssertDeltas(t, "a", f.Deltas(dfKey("a")), cache.Deltas{
				{Type: cache.Updated, Object: a1}, {Type: cache.Deleted, Object: tc.keep},
			})
			s := f.Stats(0)
			if s.Added.Deleted != 1 || s.Deltas != 2 || s.Coalesced != 1 {
				t.Fatalf("Added.Deleted=%d Deltas=%d Coalesced=%d, want 1 2 1", s.Added.Deleted, s.Deltas, s.Coalesced)
			}
		})
	}
}

func TestDeltaFIFODeleteOfUnknownKeyIsDropped(t *testing.T) {
	a := dfObj("a", 1)
	cases := []struct {
		name  string
		known *dfKnown
		want  cache.Deltas
	}{
		{"no knownObjects", nil, nil},
		{"not in knownObjects", dfNewKnown(), nil},
		{"in knownObjects", dfNewKnown(a), cache.Deltas{{Type: cache.Deleted, Object: a}}},
		{"lookup fails", &dfKnown{objs: map[string]interface{}{}, failKeys: map[string]bool{dfKey("a"): true}},
			cache.Deltas{{Type: cache.Deleted, Object: a}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := cache.DeltaFIFOOptions{}
			if tc.known != nil {
				opts.KnownObjects = tc.known
			}
			f := NewDeltaFIFO(opts)
			if err := f.Delete(a); err != nil {
				t.Fatal(err)
			}
			if got := f.Deltas(dfKey("a")); !slices.Equal(got, tc.want) {
				t.Fatalf("deltas %s, want %s", dfFormat(got), dfFormat(tc.want))
			}
			// Even a dropped delete ends the wait for a first Replace.
			if !f.HasSynced() {
				t.Fatal("HasSynced = false after Delete")
			}
		})
	}
}

func TestDeltaFIFOReplaceTombstones(t *testing.T) {
	for _, emit := range []bool{false, true} {
		listed := cache.Sync
		if emit {
			listed = cache.Replaced
		}
		t.Run(string(listed), func(t *testing.T) {
			aOld, aNew, bOld := dfObj("a", 1), dfObj("a", 2), dfObj("b", 1)
			c, d1, d2 := dfObj("c", 1), dfObj("d", 1), dfObj("d", 2)
			eOld, eNew := dfObj("e", 1), dfObj("e", 2)
			known := dfNewKnown(aOld, bOld, eOld)
			f := NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: emit})
			if err := f.Add(c); err != nil { // c: only in the queue
				t.Fatal(err)
			}
			if err := f.Update(eNew); err != nil { // e: known, and newer in the queue
				t.Fatal(err)
			}
			if err := f.Update(d1); err != nil { // d: queued and already deleted
				t.Fatal(err)
			}
			if err := f.Delete(d2); err != nil {
				t.Fatal(err)
			}
			if err := f.Replace([]interface{}{aNew}, "5"); err != nil {
				t.Fatal(err)
			}
			// Queued keys keep their places; the listed key follows them and
			// the key known only to knownObjects comes last.
			dfAssertKeys(t, f, dfKey("c"), dfKey("e"), dfKey("d"), dfKey("a"), dfKey("b"))
			dfAssertDeltas(t, "c", f.Deltas(dfKey("c")), cache.Deltas{
				{Type: cache.Added, Object: c}, {Type: cache.Deleted, Object: dfTomb("c", c)},
			})
			// A queued key's tombstone carries the newest queued object, not
			// the older one knownObjects holds.
			dfAssertDeltas(t, "e", f.Deltas(dfKey("e")), cache.Deltas{
				{Type: cache.Updated, Object: eNew}, {Type: cache.Deleted, Object: dfTomb("e", eNew)},
			})
			dfAssertDeltas(t, "d", f.Deltas(dfKey("d")), cache.Deltas{
				{Type: cache.Updated, Object: d1}, {Type: cache.Deleted, Object: d2},
			})
			dfAssertDeltas(t, "a", f.Deltas(dfKey("a")), cache.Deltas{{Type: listed, Object: aNew}})
			dfAssertDeltas(t, "b", f.Deltas(dfKey("b")), cache.Deltas{{Type: cache.Deleted, Object: dfTomb("b", bOld)}})

			// A second relist without c must not wrap c's tombstone in
			// another one: the newest tombstone holds the real object.
			if err := f.Replace([]interface{}{aNew}, "6"); err != nil {
				t.Fatal(err)
			}
			dfAssertDeltas(t, "c again", f.Deltas(dfKey("c")), cache.Deltas{
				{Type: cache.Added, Object: c}, {Type: cache.Deleted, Object: dfTomb("c", c)},
			})
			dfAssertDeltas(t, "a again", f.Deltas(dfKey("a")), cache.Deltas{{Type: listed, Object: aNew}, {Type: listed, Object: aNew}})
		})
	}
}

func TestDeltaFIFOReplaceWithoutKnownObjectsTombstonesOnlyQueuedKeys(t *testing.T) {
	a, b := dfObj("a", 1), dfObj("b", 1)
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	if err := f.Add(a); err != nil {
		t.Fatal(err)
	}
	if err := f.Replace([]interface{}{b}, "1"); err != nil {
		t.Fatal(err)
	}
	dfAssertKeys(t, f, dfKey("a"), dfKey("b"))
	dfAssertDeltas(t, "a", f.Deltas(dfKey("a")), cache.Deltas{
		{Type: cache.Added, Object: a}, {Type: cache.Deleted, Object: dfTomb("a", a)},
	})
	dfAssertDeltas(t, "b", f.Deltas(dfKey("b")), cache.Deltas{{Type: cache.Sync, Object: b}})
}

func TestDeltaFIFOReplaceLookupFailureGivesEmptyTombstone(t *testing.T) {
	known := dfNewKnown(dfObj("a", 1))
	known.failKeys[dfKey("a")] = true
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: known})
	if err := f.Replace(nil, "1"); err != nil {
		t.Fatal(err)
	}
	dfAssertDeltas(t, "a", f.Deltas(dfKey("a")), cache.Deltas{{Type: cache.Deleted, Object: dfTomb("a", nil)}})
}

func TestDeltaFIFOReplaceStopsAtBadItem(t *testing.T) {
	a, b := dfObj("a", 1), dfObj("b", 1)
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	err := f.Replace([]interface{}{a, "not an object", b}, "1")
	var keyErr cache.KeyError
	if !errors.As(err, &keyErr) || keyErr.Obj != "not an object" {
		t.Fatalf("err = %v, want a KeyError for the bad item", err)
	}
	// Items before the bad one are queued; the batch was never defined.
	dfAssertKeys(t, f, dfKey("a"))
	if f.HasSynced() {
		t.Fatal("a failed first Replace must not define the first batch")
	}
}

func TestDeltaFIFOResyncSkipsQueuedKeys(t *testing.T) {
	a, b1, b2, c := dfObj("a", 1), dfObj("b", 1), dfObj("b", 2), dfObj("c", 1)
	known := dfNewKnown(a, b1, c)
	known.objs["ns/gone"] = nil // listed, but its lookup fails: skipped
	known.failKeys["ns/gone"] = true
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: known})
	if err := f.Update(b2); err != nil {
		t.Fatal(err)
	}
	if err := f.Resync(); err != nil {
		t.Fatal(err)
	}
	dfAssertKeys(t, f, dfKey("b"), dfKey("a"), dfKey("c"))
	dfAssertDeltas(t, "b", f.Deltas(dfKey("b")), cache.Deltas{{Type: cache.Updated, Object: b2}})
	dfAssertDeltas(t, "a", f.Deltas(dfKey("a")), cache.Deltas{{Type: cache.Sync, Object: a}})
	dfAssertDeltas(t, "c", f.Deltas(dfKey("c")), cache.Deltas{{Type: cache.Sync, Object: c}})
	// A second resync finds every key queued.
	if err := f.Resync(); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(0); s.Deltas != 3 || s.Added.Sync != 2 {
		t.Fatalf("Deltas=%d Added.Sync=%d, want 3 2", s.Deltas, s.Added.Sync)
	}
}

func TestDeltaFIFOResyncWithoutKnownObjectsAndBeforeSync(t *testing.T) {
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	if err := f.Resync(); err != nil {
		t.Fatal(err)
	}
	dfAssertKeys(t, f)

	// Resync is not a first write: it does not end the wait for Replace.
	g := NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: dfNewKnown(dfObj("a", 1))})
	if err := g.Resync(); err != nil {
		t.Fatal(err)
	}
	if p := dfPop(t, g); !p.initial || g.HasSynced() {
		t.Fatalf("after Resync+Pop: initial=%v HasSynced=%v, want true false", p.initial, g.HasSynced())
	}
}

func TestDeltaFIFOTransformer(t *testing.T) {
	var seen []interface{}
	transform := func(obj interface{}) (interface{}, error) {
		seen = append(seen, obj)
		return dfTestTransform(obj)
	}
	a1, a2, a3, b, c := dfObj("a", 1), dfObj("a", 2), dfObj("a", 3), dfObj("b", 1), dfObj("c", 1)
	known := dfNewKnown(c.twin)
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: known, Transformer: transform})
	if f.Transformer() == nil {
		t.Fatal("Transformer() = nil")
	}
	steps := []func() error{
		func() error { return f.Add(a1) },
		func() error { return f.Update(a2) },
		func() error { return f.Delete(a3) },
		func() error { return f.Delete(dfTomb("a", a3)) },        // tombstone: untouched
		func() error { return f.Replace([]interface{}{b}, "1") }, // Sync type, still transformed
		func() error { return f.Resync() },                       // nothing: every known key is queued
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	dfAssertDeltas(t, "a", f.Deltas(dfKey("a")), cache.Deltas{
		{Type: cache.Added, Object: a1.twin}, {Type: cache.Updated, Object: a2.twin}, {Type: cache.Deleted, Object: a3.twin},
	})
	dfAssertDeltas(t, "b", f.Deltas(dfKey("b")), cache.Deltas{{Type: cache.Sync, Object: b.twin}})
	// The relist tombstone for c, known only to the store, is not transformed.
	dfAssertDeltas(t, "c", f.Deltas(dfKey("c")), cache.Deltas{{Type: cache.Deleted, Object: dfTomb("c", c.twin)}})
	if want := []interface{}{a1, a2, a3, b}; !slices.Equal(seen, want) {
		t.Fatalf("transformer saw %v, want %v", seen, want)
	}

	// Resync's Sync deltas re-queue cached objects and are not transformed.
	seen = nil
	for f.Stats(0).Depth > 0 {
		dfPop(t, f)
	}
	if err := f.Resync(); err != nil {
		t.Fatal(err)
	}
	dfAssertDeltas(t, "c resync", f.Deltas(dfKey("c")), cache.Deltas{{Type: cache.Sync, Object: c.twin}})
	if len(seen) != 0 {
		t.Fatalf("transformer saw %v during Resync", seen)
	}
}

func TestDeltaFIFOTransformerErrorsAndKeys(t *testing.T) {
	boom := errors.New("boom")
	rename := func(obj interface{}) (interface{}, error) {
		o := obj.(*dfTestObj)
		if o.Val < 0 {
			return nil, boom
		}
		return dfObj("renamed", o.Val), nil
	}
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{Transformer: rename})
	if err := f.Add(dfObj("a", -1)); !errors.Is(err, boom) {
		t.Fatalf("Add err = %v, want boom", err)
	}
	err := f.Replace([]interface{}{dfObj("b", -1)}, "1")
	if err == nil || !strings.Contains(err.Error(), "couldn't enqueue object: boom") {
		t.Fatalf("Replace err = %v", err)
	}
	dfAssertKeys(t, f)
	// The key is taken before transforming.
	if err := f.Add(dfObj("a", 1)); err != nil {
		t.Fatal(err)
	}
	dfAssertKeys(t, f, dfKey("a"))
	if name := f.Deltas(dfKey("a"))[0].Object.(*dfTestObj).Name; name != "renamed" {
		t.Fatalf("queued object %q, want the transformed one", name)
	}
}

func TestDeltaFIFOHasSyncedAfterLastInitialItemPopped(t *testing.T) {
	a, b, x := dfObj("a", 1), dfObj("b", 1), dfObj("x", 1)
	// x is known but not listed: its tombstone belongs to the first batch.
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: dfNewKnown(x)})
	checker := f.HasSyncedChecker()
	if checker.Name() != "DeltaFIFO" {
		t.Fatalf("checker name %q", checker.Name())
	}
	if err := f.Replace([]interface{}{a, b}, "1"); err != nil {
		t.Fatal(err)
	}
	// A later Replace or Add does not extend the first batch.
	if err := f.Replace([]interface{}{a, b}, "2"); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(dfObj("c", 1)); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if p := dfPop(t, f); !p.initial {
			t.Fatalf("pop %d: isInInitialList = false", i)
		}
		if f.HasSynced() || cache.IsDone(checker) {
			t.Fatalf("synced after %d of 3 initial pops", i+1)
		}
	}
	// The Done channel closes when the last initial row leaves the queue,
	// before its process function runs; HasSynced waits for the lock.
	var initial, doneDuringProcess bool
	dfRequireQueued(t, f)
	if _, err := f.Pop(func(_ interface{}, init bool) error {
		initial, doneDuringProcess = init, cache.IsDone(checker)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !initial || !doneDuringProcess || !f.HasSynced() {
		t.Fatalf("last initial pop: initial=%v done=%v HasSynced=%v", initial, doneDuringProcess, f.HasSynced())
	}
	if p := dfPop(t, f); p.initial {
		t.Fatal("the row after the first batch was marked initial")
	}
}

func TestDeltaFIFOHasSyncedWithoutInitialBatch(t *testing.T) {
	empty := NewDeltaFIFO(cache.DeltaFIFOOptions{Name: "pods"})
	if empty.HasSynced() {
		t.Fatal("synced before anything happened")
	}
	if err := empty.Replace(nil, "1"); err != nil {
		t.Fatal(err)
	}
	if !empty.HasSynced() || empty.HasSyncedChecker().Name() != "pods" {
		t.Fatalf("empty first Replace: HasSynced=%v name=%q", empty.HasSynced(), empty.Name())
	}

	addFirst := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	if err := addFirst.Add(dfObj("a", 1)); err != nil {
		t.Fatal(err)
	}
	if err := addFirst.Replace([]interface{}{dfObj("b", 1)}, "1"); err != nil {
		t.Fatal(err)
	}
	if !addFirst.HasSynced() || dfPop(t, addFirst).initial {
		t.Fatal("an Add before any Replace must make the first batch empty")
	}
}

func TestDeltaFIFOCloseDrainsThenErrFIFOClosed(t *testing.T) {
	a, b := dfObj("a", 1), dfObj("b", 1)
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	if err := f.Add(a); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !f.IsClosed() || !f.Stats(0).Closed {
		t.Fatal("not closed")
	}
	dfAssertDeltas(t, "first", dfPop(t, f).deltas, cache.Deltas{{Type: cache.Added, Object: a}})
	dfAssertDeltas(t, "second", dfPop(t, f).deltas, cache.Deltas{{Type: cache.Added, Object: b}})
	called := false
	item, err := f.Pop(func(interface{}, bool) error { called = true; return nil })
	if !errors.Is(err, cache.ErrFIFOClosed) || item != nil || called {
		t.Fatalf("Pop on closed empty queue = %v, %v (process called: %v)", item, err, called)
	}
}

func TestDeltaFIFOPopProcessErrorDoesNotRequeue(t *testing.T) {
	a := dfObj("a", 1)
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	if err := f.Add(a); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	dfRequireQueued(t, f)
	item, err := f.Pop(func(interface{}, bool) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	dfAssertDeltas(t, "item", item, cache.Deltas{{Type: cache.Added, Object: a}})
	dfAssertKeys(t, f)
	if s := f.Stats(0); s.Pops != 1 || s.Popped.Added != 1 {
		t.Fatalf("Pops=%d Popped.Added=%d, want 1 1", s.Pops, s.Popped.Added)
	}
}

// TestDeltaFIFOPanicInCallerCodeLeavesQueueUnlocked: the reflector
// recovers a panic from the transformer or the key function and retries,
// so the queue must come out of it unlocked.
func TestDeltaFIFOPanicInCallerCodeLeavesQueueUnlocked(t *testing.T) {
	panicky := func(interface{}) (interface{}, error) { panic("transform exploded") }
	ops := map[string]func(f *DeltaFIFO) error{
		"Add":     func(f *DeltaFIFO) error { return f.Add(dfObj("a", 1)) },
		"Replace": func(f *DeltaFIFO) error { return f.Replace([]interface{}{dfObj("a", 1)}, "1") },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			f := NewDeltaFIFO(cache.DeltaFIFOOptions{Transformer: panicky})
			func() {
				defer func() {
					if recover() == nil {
						t.Fatal("no panic reached the caller")
					}
				}()
				_ = op(f)
			}()
			if !f.mu.TryLock() {
				t.Fatal("the queue stayed locked after the panic")
			}
			f.mu.Unlock()
		})
	}
}

type dfPopResult struct {
	item interface{}
	err  error
}

func dfPopAsync(f *DeltaFIFO) <-chan dfPopResult {
	out := make(chan dfPopResult, 1)
	go func() {
		item, err := f.Pop(func(interface{}, bool) error { return nil })
		out <- dfPopResult{item, err}
	}()
	return out
}

func TestDeltaFIFOPopBlocksUntilAdd(t *testing.T) {
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	res := dfPopAsync(f)
	waitForBlockedPops(t, "(*DeltaFIFO).Pop", 1)
	select {
	case r := <-res:
		t.Fatalf("Pop returned %v, %v on an empty queue", r.item, r.err)
	default:
	}
	a := dfObj("a", 1)
	if err := f.Add(a); err != nil {
		t.Fatal(err)
	}
	r := awaitWakeUp(t, res, "Add")
	if r.err != nil {
		t.Fatal(r.err)
	}
	dfAssertDeltas(t, "popped", r.item, cache.Deltas{{Type: cache.Added, Object: a}})
}

func TestDeltaFIFOCloseWakesBlockedPop(t *testing.T) {
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	res := dfPopAsync(f)
	waitForBlockedPops(t, "(*DeltaFIFO).Pop", 1)
	f.Close()
	if r := awaitWakeUp(t, res, "Close"); !errors.Is(r.err, cache.ErrFIFOClosed) || r.item != nil {
		t.Fatalf("Pop after Close = %v, %v", r.item, r.err)
	}
}

func TestDeltaFIFOConcurrentProducersKeepPerKeyOrder(t *testing.T) {
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	const perProducer = 200
	producer := func(prefix string) {
		for i := range perProducer {
			_ = f.Add(dfObj(prefix+string(rune('a'+i%26))+string(rune('a'+i/26)), i))
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { producer("x") })
	wg.Go(func() { producer("y") })
	// Closing once both are done turns a lost item into ErrFIFOClosed
	// instead of a Pop that blocks the test forever.
	closed := make(chan struct{})
	go func() { wg.Wait(); f.Close(); close(closed) }()
	defer func() { <-closed }()
	last := map[byte]int{'x': -1, 'y': -1}
	for range 2 * perProducer {
		item, err := f.Pop(nil)
		if err != nil {
			t.Fatal(err)
		}
		o := item.(cache.Deltas)[0].Object.(*dfTestObj)
		if p := o.Name[0]; o.Val <= last[p] {
			t.Fatalf("producer %c: %d popped after %d", p, o.Val, last[p])
		} else {
			last[p] = o.Val
		}
	}
	if last['x'] != perProducer-1 || last['y'] != perProducer-1 {
		t.Fatalf("last popped %v", last)
	}
}

func TestDeltaFIFOStats(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := t0
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{KnownObjects: dfNewKnown(dfObj("c", 0))})
	f.now = func() time.Time { return clock }
	a1, a2, b, c := dfObj("a", 1), dfObj("a", 2), dfObj("b", 1), dfObj("c", 1)
	steps := []func() error{
		func() error { return f.Add(a1) },
		func() error { clock = t0.Add(time.Second); return f.Add(b) },
		func() error { clock = t0.Add(2 * time.Second); return f.Update(a2) },
		func() error { return f.Delete(c) },
		func() error { return f.Delete(dfTomb("c", c)) }, // deduplicated
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	s := f.Stats(2)
	if s.Kind != KindDeltaFIFO || s.Depth != 3 || s.Deltas != 4 || s.Coalesced != 1 || s.Pops != 0 ||
		!s.OldestEnqueued.Equal(t0) || !s.Synced || s.Closed {
		t.Fatalf("stats %+v", s)
	}
	if want := (TypeCounts{Added: 2, Updated: 1, Deleted: 1}); s.Added != want || s.Popped != (TypeCounts{}) {
		t.Fatalf("Added %+v Popped %+v, want %+v and zero", s.Added, s.Popped, want)
	}
	wantHead := []Item{
		{Key: dfKey("a"), Types: []cache.DeltaType{cache.Added, cache.Updated}, Enqueued: t0},
		{Key: dfKey("b"), Types: []cache.DeltaType{cache.Added}, Enqueued: t0.Add(time.Second)},
	}
	dfAssertHead(t, s.Head, wantHead)
	if h := f.Stats(0).Head; h != nil {
		t.Fatalf("Stats(0).Head = %v", h)
	}
	if h := f.Stats(10).Head; len(h) != 3 || h[2].Key != dfKey("c") || !h[2].Enqueued.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("Stats(10).Head = %+v", h)
	}

	dfPop(t, f)
	s = f.Stats(1)
	if s.Depth != 2 || s.Deltas != 2 || s.Pops != 1 || !s.OldestEnqueued.Equal(t0.Add(time.Second)) ||
		s.Popped != (TypeCounts{Added: 1, Updated: 1}) {
		t.Fatalf("after pop: %+v", s)
	}
	dfAssertHead(t, s.Head, wantHead[1:])
	dfPop(t, f)
	dfPop(t, f)
	if s = f.Stats(5); s.Depth != 0 || s.Deltas != 0 || !s.OldestEnqueued.IsZero() || len(s.Head) != 0 || s.Popped != s.Added {
		t.Fatalf("drained: %+v", s)
	}
}

func dfAssertHead(t *testing.T, got, want []Item) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("head %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Key != w.Key || !g.Enqueued.Equal(w.Enqueued) || strings.Join(dfTypeStrings(g.Types), ",") != strings.Join(dfTypeStrings(w.Types), ",") {
			t.Fatalf("head[%d] = %+v, want %+v", i, g, w)
		}
	}
}

func dfTypeStrings(ts []cache.DeltaType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

func TestDeltaFIFODeltasGetAndListReturnCopies(t *testing.T) {
	a1, a2, a3, b := dfObj("a", 1), dfObj("a", 2), dfObj("a", 3), dfObj("b", 1)
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	for _, op := range []func() error{
		func() error { return f.Add(a1) }, func() error { return f.Update(a2) }, func() error { return f.Add(b) },
	} {
		if err := op(); err != nil {
			t.Fatal(err)
		}
	}
	want := cache.Deltas{{Type: cache.Added, Object: a1}, {Type: cache.Updated, Object: a2}}
	got := f.Deltas(dfKey("a"))
	dfAssertDeltas(t, "Deltas", got, want)
	got[0] = dfD{Type: cache.Sync, Object: b} // must not reach the queue
	item, exists, err := f.Get(a3)            // any object with the key
	if err != nil || !exists {
		t.Fatalf("Get: exists=%v err=%v", exists, err)
	}
	dfAssertDeltas(t, "Get", item, want)
	if err := f.Update(a3); err != nil { // must not show through earlier copies
		t.Fatal(err)
	}
	dfAssertDeltas(t, "Get copy", item, want)
	byKey, exists, err := f.GetByKey(dfKey("a"))
	if err != nil || !exists {
		t.Fatalf("GetByKey: exists=%v err=%v", exists, err)
	}
	dfAssertDeltas(t, "GetByKey", byKey, append(want, dfD{Type: cache.Updated, Object: a3}))
	// Neither writes into a returned slice nor in-place dedup of the row
	// may show through: a tombstone followed by a real delete rewrites the
	// row's last delta.
	byKey.(cache.Deltas)[0] = dfD{Type: cache.Sync, Object: b}
	if err := f.Delete(dfTomb("a", a3)); err != nil {
		t.Fatal(err)
	}
	beforeDedup, _, _ := f.GetByKey(dfKey("a"))
	if err := f.Delete(a3); err != nil {
		t.Fatal(err)
	}
	dfAssertDeltas(t, "before dedup", beforeDedup, append(want, dfD{Type: cache.Updated, Object: a3}, dfD{Type: cache.Deleted, Object: dfTomb("a", a3)}))
	dfAssertDeltas(t, "after dedup", f.Deltas(dfKey("a")), append(want, dfD{Type: cache.Updated, Object: a3}, dfD{Type: cache.Deleted, Object: a3}))
	if _, exists, _ := f.GetByKey(dfKey("zz")); exists || f.Deltas(dfKey("zz")) != nil {
		t.Fatal("a key never queued exists")
	}
	if list := f.List(); !slices.Equal(list, []interface{}{a3, b}) {
		t.Fatalf("List = %v, want newest objects in queue order", list)
	}
	dfAssertKeys(t, f, dfKey("a"), dfKey("b"))
}

func TestDeltaFIFOKeyOf(t *testing.T) {
	f := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	a := dfObj("a", 1)
	cases := []struct {
		obj  interface{}
		want string
	}{
		{a, dfKey("a")},
		{dfTomb("gone", nil), dfKey("gone")},
		{cache.Deltas{{Type: cache.Added, Object: a}, {Type: cache.Deleted, Object: dfTomb("b", a)}}, dfKey("b")},
	}
	for _, tc := range cases {
		if got, err := f.KeyOf(tc.obj); err != nil || got != tc.want {
			t.Fatalf("KeyOf(%v) = %q, %v; want %q", tc.obj, got, err, tc.want)
		}
	}
	_, err := f.KeyOf(cache.Deltas{})
	var keyErr cache.KeyError
	if !errors.As(err, &keyErr) || !errors.Is(keyErr.Err, cache.ErrZeroLengthDeltasObject) {
		t.Fatalf("KeyOf(empty Deltas) err = %v", err)
	}
	if err := f.Add(42); err == nil {
		t.Fatal("Add of an object without metadata succeeded")
	}
	// As in client-go, even a failed Add is a first write for HasSynced.
	if !f.HasSynced() {
		t.Fatal("HasSynced = false after a failed Add")
	}
	if err := f.Delete(42); err == nil {
		t.Fatal("Delete of an object without metadata succeeded")
	}
}

// TestDeltaFIFOKeyQueueFollowsLiveLength: after a burst (a big relist)
// drains, the key order must not keep the burst's backing array.
func TestDeltaFIFOKeyQueueFollowsLiveLength(t *testing.T) {
	const burst = 100_000
	var q dfKeyQueue
	for i := range burst {
		q.push(strconv.Itoa(i))
	}
	next := 0
	popTo := func(live int) {
		t.Helper()
		for q.len() > live {
			if got := q.popFront(); got != strconv.Itoa(next) {
				t.Fatalf("popped %q, want %d", got, next)
			}
			next++
		}
	}
	popTo(10)
	if front, _ := q.front(); front != strconv.Itoa(burst-10) || cap(q.keys) > dfKeyQueueMinCap {
		t.Fatalf("10 keys left: front %q, capacity %d (burst %d)", front, cap(q.keys), burst)
	}
	popTo(0)
	if cap(q.keys) > dfKeyQueueMinCap {
		t.Fatalf("drained: capacity %d", cap(q.keys))
	}
	q.push("again")
	if front, ok := q.front(); !ok || front != "again" || q.len() != 1 {
		t.Fatalf("reuse: front %q, len %d", front, q.len())
	}
}

// TestDeltaFIFOMatchesClientGo runs one scripted informer-like history
// through client-go's DeltaFIFO and ours and requires identical queues
// after every step and identical popped items.
func TestDeltaFIFOMatchesClientGo(t *testing.T) {
	for _, emit := range []bool{false, true} {
		for _, transform := range []bool{false, true} {
			name := map[bool]string{false: "sync", true: "replaced"}[emit] + map[bool]string{false: "", true: "+transform"}[transform]
			t.Run(name, func(t *testing.T) {
				p := dfNewPair(emit, true, transform)
				a1, b1, c1, d1 := dfObj("a", 1), dfObj("b", 1), dfObj("c", 1), dfObj("d", 1)
				a2, a3, b2, c2, d2, e1 := dfObj("a", 2), dfObj("a", 3), dfObj("b", 2), dfObj("c", 2), dfObj("d", 2), dfObj("e", 1)
				add := func(o *dfTestObj) func(cache.Queue) error {
					return func(q cache.Queue) error { return q.Add(o) }
				}
				p.do(t, "initial list", func(q cache.Queue) error { return q.Replace([]interface{}{a1, b1, c1}, "1") })
				p.pop(t, "pop a", nil)
				p.do(t, "add d", add(d1))
				p.do(t, "update a", func(q cache.Queue) error { return q.Update(a2) })
				p.do(t, "update b", func(q cache.Queue) error { return q.Update(b2) })
				p.pop(t, "pop b", nil)
				p.do(t, "resync", func(q cache.Queue) error { return q.Resync() })
				p.do(t, "delete b", func(q cache.Queue) error { return q.Delete(b2) })
				p.pop(t, "pop c", errors.New("handler failed"))
				p.do(t, "relist", func(q cache.Queue) error { return q.Replace([]interface{}{a3, d2, e1}, "2") })
				p.do(t, "late delete c", func(q cache.Queue) error { return q.Delete(dfTomb("c", c2)) })
				p.do(t, "update unknown", func(q cache.Queue) error { return q.Update(c2) })
				p.do(t, "delete twice", func(q cache.Queue) error { return q.Delete(c2) })
				p.do(t, "close", func(q cache.Queue) error { q.Close(); return nil })
				for p.ours.Stats(0).Depth > 0 {
					p.pop(t, "drain", nil)
				}
				p.pop(t, "closed", nil)
			})
		}
	}
}
