package instr

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
)

func TestRingKeepsNewestAndCountsMissed(t *testing.T) {
	r := NewRing(4)
	for i := range 6 {
		r.Emit(Event{Type: pipeline.EventPop, Count: i})
	}
	evs, next, missed := r.Since(0, 0)
	if len(evs) != 4 || evs[0].Count != 2 || evs[3].Count != 5 || next != 7 || missed != 0 {
		t.Fatalf("Since(0) = %d events from %d, next %d, missed %d", len(evs), evs[0].Count, next, missed)
	}
	// A reader whose cursor is at seq 2 missed exactly seq 2: the ring
	// holds seq 3 to 6 now.
	_, next, missed = r.Since(2, 0)
	if missed != 1 || next != 7 {
		t.Fatalf("Since(2): next %d, missed %d; want 7, 1", next, missed)
	}
	// Two events (seq 1 and 2) were overwritten, whoever read what.
	if st := r.Stats(); st.Emitted != 6 || st.Dropped != 2 {
		t.Fatalf("stats = %+v", st)
	}
	if evs, next, _ := r.Since(next, 10); len(evs) != 0 || next != 7 {
		t.Fatalf("caught-up reader got %d events, next %d", len(evs), next)
	}
	if got := r.Recent(2); len(got) != 2 || got[1].Count != 5 || got[0].Seq != 5 {
		t.Fatalf("Recent(2) = %+v", got)
	}
}

func TestRingMaxAndSizes(t *testing.T) {
	r := NewRing(5) // rounded up to 8
	for range 8 {
		r.Emit(Event{})
	}
	evs, next, _ := r.Since(0, 3)
	if len(evs) != 3 || evs[0].Seq != 1 || next != 4 {
		t.Fatalf("Since with max: %d events from seq %d, next %d", len(evs), evs[0].Seq, next)
	}
	if NewRing(0) == nil || len(NewRing(0).buf) != DefaultRingSize {
		t.Fatal("default size not applied")
	}
	var nilRing *Ring
	nilRing.Emit(Event{}) // a nil sink discards
}

// TestRingReadersCountTheirOwnMisses: two slow readers each learn exactly
// what they missed, and the ring's drop counter counts each overwritten
// event once, however many readers there are and however often they read.
func TestRingReadersCountTheirOwnMisses(t *testing.T) {
	r := NewRing(4)
	emit := func(n int) {
		for range n {
			r.Emit(Event{Type: pipeline.EventPop})
		}
	}
	emit(3)
	// a reads seq 1-3 now; b has read nothing and holds cursor 1.
	evs, a, missed := r.Since(1, 0)
	if len(evs) != 3 || a != 4 || missed != 0 {
		t.Fatalf("a's first read: %d events, next %d, missed %d", len(evs), a, missed)
	}
	b := uint64(1)

	emit(7) // seq 4-10; the ring holds 7-10, seq 1-6 were overwritten
	if st := r.Stats(); st.Emitted != 10 || st.Dropped != 6 {
		t.Fatalf("stats after overwriting 6 events = %+v", st)
	}
	evs, a, missed = r.Since(a, 0)
	if missed != 3 || len(evs) != 4 || evs[0].Seq != 7 || a != 11 {
		t.Fatalf("a: missed %d (want seq 4-6), %d events from seq %d, next %d", missed, len(evs), evs[0].Seq, a)
	}
	evs, b, missed = r.Since(b, 2)
	if missed != 6 || len(evs) != 2 || evs[0].Seq != 7 || b != 9 {
		t.Fatalf("b: missed %d (want seq 1-6), %d events from seq %d, next %d", missed, len(evs), evs[0].Seq, b)
	}
	// Reading, and reading again from a stale cursor, leaves the counter alone.
	if _, _, missed = r.Since(1, 0); missed != 6 {
		t.Fatalf("a stale cursor missed %d, want 6", missed)
	}
	if st := r.Stats(); st.Dropped != 6 {
		t.Fatalf("reads changed the drop counter: %+v", st)
	}

	emit(2) // seq 11-12 overwrite 7 and 8; b had read both, a had read them too
	_, b, missed = r.Since(b, 0)
	if missed != 0 || b != 13 {
		t.Fatalf("b after reading 7-8 in time: missed %d, next %d", missed, b)
	}
	if _, a, missed = r.Since(a, 0); missed != 0 || a != 13 {
		t.Fatalf("a: missed %d, next %d", missed, a)
	}
	if st := r.Stats(); st.Emitted != 12 || st.Dropped != 8 {
		t.Fatalf("final stats = %+v, want 12 emitted, 8 overwritten", st)
	}
}

func TestRingConcurrentWritersAndReader(t *testing.T) {
	r := NewRing(64)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				r.Emit(Event{Count: w*1000 + i})
			}
		})
	}
	var seen, missed uint64
	cursor := uint64(1) // from the very first event, so every miss is counted
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	for {
		evs, next, m := r.Since(cursor, 0)
		for i, ev := range evs {
			if ev.Seq != cursor+m+uint64(i) {
				t.Fatalf("events out of order: seq %d", ev.Seq)
			}
		}
		seen += uint64(len(evs))
		missed += m
		cursor = next
		select {
		case <-done:
			evs, _, m := r.Since(cursor, 0)
			seen += uint64(len(evs))
			missed += m
			if seen+missed != 4000 {
				t.Fatalf("seen %d + missed %d does not account for 4000 events", seen, missed)
			}
			// The ring overwrote all but its last 64 events; the reader
			// missed some of those, never more.
			if st := r.Stats(); st.Emitted != 4000 || st.Dropped != 4000-64 || missed > st.Dropped {
				t.Fatalf("stats %+v, missed %d", st, missed)
			}
			return
		default:
		}
	}
}

func TestObjectKeyPrefersKey(t *testing.T) {
	if got := (Event{Key: "a/b"}).ObjectKey(); got != "a/b" {
		t.Fatalf("ObjectKey = %q", got)
	}
}

// A flood of per-item events does not push lifecycle events out: a reader
// that falls behind gets the lifecycle events of the stretch it missed, in
// order, and is told exactly how many events it lost. The counters count
// log entries the ring no longer holds, lifecycle ones apart.
func TestRingKeepsLifecycleEventsThroughAFlood(t *testing.T) {
	r := NewRing(8)                              // 8 events, and 256 lifecycle events besides
	r.Emit(Event{Type: pipeline.EventListDone})  // seq 1
	r.Emit(Event{Type: pipeline.EventWatchOpen}) // seq 2
	for range 20 {                               // seq 3-22: the flood
		r.Emit(Event{Type: pipeline.EventStoreUpdate})
	}
	r.Emit(Event{Type: pipeline.EventWatchClose})                                                      // seq 23
	r.Emit(Event{Type: pipeline.EventDistribute, Obj: cache.DeletedFinalStateUnknown{Key: "ns/gone"}}) // seq 24: a tombstone
	for range 8 {                                                                                      // seq 25-32
		r.Emit(Event{Type: pipeline.EventPop})
	}

	evs, next, missed := r.Since(1, 0)
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%d %s", e.Seq, e.Type))
	}
	want := []string{"1 ListDone", "2 WatchOpen", "23 WatchClose", "24 Distribute",
		"25 Pop", "26 Pop", "27 Pop", "28 Pop", "29 Pop", "30 Pop", "31 Pop", "32 Pop"}
	if !slices.Equal(got, want) || next != 33 {
		t.Fatalf("a reader from seq 1 got %q, next %d; want %q, next 33", got, next, want)
	}
	if missed != 20 {
		t.Fatalf("missed %d, want the 20 flooded store updates", missed)
	}
	if st := r.Stats(); st.Dropped != 20 || st.DroppedLifecycle != 0 {
		t.Fatalf("stats %+v, want 20 per-item entries dropped and no lifecycle entry", st)
	}
	// A bounded read stops inside the rescued stretch and goes on from there.
	evs, next, missed = r.Since(1, 3)
	if len(evs) != 3 || evs[2].Seq != 23 || next != 24 || missed != 20 {
		t.Fatalf("Since(1, 3): %d events up to seq %d, next %d, missed %d", len(evs), evs[len(evs)-1].Seq, next, missed)
	}
	if evs, next, missed = r.Since(next, 0); len(evs) != 9 || evs[0].Seq != 24 || next != 33 || missed != 0 {
		t.Fatalf("reading on: %d events from seq %d, next %d, missed %d", len(evs), evs[0].Seq, next, missed)
	}

	// Once lifecycle events overflow their own ring too, they count.
	small := NewRing(1) // 1 event, 256 lifecycle events
	for range 300 {
		small.Emit(Event{Type: pipeline.EventControl})
	}
	if st := small.Stats(); st.Dropped != 300-256 || st.DroppedLifecycle != 300-256 {
		t.Fatalf("lifecycle overflow: %+v, want %d dropped, all lifecycle", st, 300-256)
	}
	if _, _, missed := small.Since(1, 0); missed != 300-256 {
		t.Fatalf("lifecycle overflow: a reader from seq 1 missed %d, want %d", missed, 300-256)
	}
}

// A reader starting from 0 gets the held lifecycle events first and is
// told of no miss: it asked for what is held.
func TestRingFromZeroStartsWithTheHeldLifecycleEvents(t *testing.T) {
	r := NewRing(2)
	r.Emit(Event{Type: pipeline.EventRelist})
	for range 5 {
		r.Emit(Event{Type: pipeline.EventPop})
	}
	evs, next, missed := r.Since(0, 0)
	if len(evs) != 3 || evs[0].Type != pipeline.EventRelist || evs[1].Seq != 5 || next != 7 || missed != 0 {
		t.Fatalf("Since(0): %+v, next %d, missed %d", evs, next, missed)
	}
}
