package instr

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
)

// Rings merge by time into numbers of the merger's own, which go on as
// more events come.
func TestMergerNumbersMergedEventsItself(t *testing.T) {
	a, b := NewRing(16), NewRing(16)
	t0 := time.Unix(100, 0)
	a.Emit(Event{Type: pipeline.EventControl, Key: "ns/a1", Time: t0.Add(2 * time.Second)})
	b.Emit(Event{Type: pipeline.EventControl, Key: "ns/b1", Time: t0.Add(time.Second)})
	m := NewMerger(16)
	if !m.Add(a) || !m.Add(b) || m.Add(a) || m.Add(nil) || m.Rings() != 2 {
		t.Fatalf("adding a, b, a again and nil: %d rings", m.Rings())
	}
	evs, next, missed := m.Since(0, 0)
	if len(evs) != 2 || evs[0].Key != "ns/b1" || evs[1].Key != "ns/a1" || evs[0].Seq != 1 || next != 3 || missed != 0 {
		t.Fatalf("merged %+v, next %d, missed %d; want b1 then a1 as 1 and 2", evs, next, missed)
	}
	a.Emit(Event{Type: pipeline.EventControl, Key: "ns/a2"})
	evs, next, _ = m.Since(next, 0)
	if len(evs) != 1 || evs[0].Key != "ns/a2" || evs[0].Seq != 3 || next != 4 {
		t.Fatalf("resumed: %+v, next %d", evs, next)
	}
	if s := m.Stats(); s.Emitted != 3 || s.Dropped != 0 {
		t.Errorf("stats %+v, want the rings' 3 emitted", s)
	}
}

// A ring that joins later is read from its oldest held event, after what
// was merged before.
func TestMergerReadsARingThatJoinsFromItsOldest(t *testing.T) {
	a, late := NewRing(16), NewRing(16)
	a.Emit(Event{Type: pipeline.EventControl, Key: "ns/a"})
	m := NewMerger(0)
	m.Add(a)
	_, next, _ := m.Since(0, 0)
	late.Emit(Event{Type: pipeline.EventControl, Key: "ns/early"})
	m.Add(late)
	evs, _, missed := m.Since(next, 0)
	if len(evs) != 1 || evs[0].Key != "ns/early" || missed != 0 {
		t.Fatalf("after a ring joined: %+v, missed %d", evs, missed)
	}
}

// What a source ring overwrote before a drain is counted missed by every
// reader whose read goes past where it was lost, and by nobody else.
func TestMergerTellsReadersWhatASourceRingLost(t *testing.T) {
	a, b := NewRing(8), NewRing(8)
	m := NewMerger(64)
	m.Add(a)
	m.Add(b)
	_, first, _ := m.Since(0, 0)
	for i := range 100 {
		a.Emit(Event{Type: pipeline.EventPop, Detail: fmt.Sprint(i)})
	}
	b.Emit(Event{Type: pipeline.EventPop, Detail: "kept"})
	evs, next, missed := m.Since(first, 0)
	if len(evs) != 9 || missed != 92 {
		t.Fatalf("after 100 events into a ring of 8: %d events, missed %d; want 9 and 92", len(evs), missed)
	}
	a.Emit(Event{Type: pipeline.EventPop, Detail: "later"})
	if evs, _, missed := m.Since(next, 0); len(evs) != 1 || missed != 0 {
		t.Fatalf("resumed: %d events, missed %d; want 1 and 0", len(evs), missed)
	}
	if _, _, missed := m.Since(first, 0); missed != 92 {
		t.Errorf("a second reader from the same cursor: missed %d, want 92", missed)
	}
	if _, _, missed := m.Since(0, 0); missed != 0 {
		t.Errorf("a reader from the oldest held: missed %d, want 0", missed)
	}
	if s := m.Stats(); s.Emitted != 102 || s.Dropped != 93 {
		t.Errorf("stats %+v, want the rings' 102 emitted, 93 dropped", s)
	}
}

// The merged ring overwriting its own oldest is counted as a ring does.
func TestMergerCountsWhatItsOwnRingOverwrote(t *testing.T) {
	a := NewRing(64)
	m := NewMerger(4)
	m.Add(a)
	for range 10 {
		a.Emit(Event{Type: pipeline.EventPop})
	}
	evs, next, missed := m.Since(1, 0)
	if len(evs) != 4 || next != 11 || missed != 6 {
		t.Fatalf("%d events, next %d, missed %d; want 4, 11, 6", len(evs), next, missed)
	}
}

// Merged events keep no object: the key is built, a tombstone stays one.
func TestMergerKeepsKeysNotObjects(t *testing.T) {
	a := NewRing(8)
	obj := cache.ExplicitKey("ns/obj")
	a.Emit(Event{Type: pipeline.EventPop, Obj: obj})
	a.Emit(Event{Type: pipeline.EventDistribute, Obj: cache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: obj}})
	m := NewMerger(8)
	m.Add(a)
	evs, _, _ := m.Since(0, 0)
	if len(evs) != 2 || evs[0].Key != "ns/obj" || evs[0].Obj != nil {
		t.Fatalf("events %+v: want the key and no object", evs)
	}
	if d, ok := evs[1].Obj.(cache.DeletedFinalStateUnknown); !ok || d.Obj != nil || evs[1].Key != "ns/gone" || !evs[1].Lifecycle() {
		t.Errorf("tombstone %+v: want a lifecycle event with its key and no object", evs[1])
	}
}

// Readers and writers at once, under -race.
func TestMergerIsSafeConcurrently(t *testing.T) {
	a, b := NewRing(32), NewRing(32)
	m := NewMerger(32)
	m.Add(a)
	var wg sync.WaitGroup
	for _, r := range []*Ring{a, b} {
		wg.Go(func() {
			for range 200 {
				r.Emit(Event{Type: pipeline.EventPop})
			}
		})
	}
	wg.Go(func() { m.Add(b) })
	for range 2 {
		wg.Go(func() {
			var cursor uint64
			for range 50 {
				_, cursor, _ = m.Since(cursor, 16)
				_ = m.Stats()
			}
		})
	}
	wg.Wait()
	m.Drain()
	if s := m.Stats(); s.Emitted != 400 {
		t.Errorf("stats %+v, want 400 emitted", s)
	}
}
