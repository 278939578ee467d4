package instr

import (
	"sync"
	"testing"
)

func TestRingKeepsNewestAndCountsMissed(t *testing.T) {
	r := NewRing(4)
	for i := range 6 {
		r.Emit(Event{Type: EventPop, Count: i})
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
	if st := r.Stats(); st.Emitted != 6 || st.Dropped != 1 {
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
	Emit(nil, Event{})
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
			if st := r.Stats(); st.Emitted != 4000 || st.Dropped != missed {
				t.Fatalf("stats %+v, missed %d", st, missed)
			}
			return
		default:
		}
	}
}

func TestEventTypeNames(t *testing.T) {
	for _, et := range AllEventTypes() {
		if et.String() == "Unknown" {
			t.Fatalf("event type %d has no name", et)
		}
	}
	if EventType(0).String() != "Unknown" {
		t.Fatal("zero event type has a name")
	}
	if got := (Event{Key: "a/b"}).ObjectKey(); got != "a/b" {
		t.Fatalf("ObjectKey = %q", got)
	}
}
