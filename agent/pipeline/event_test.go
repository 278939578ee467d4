package pipeline

import "testing"

func TestEveryEventTypeHasAName(t *testing.T) {
	for et := EventType(1); et < eventTypeEnd; et++ {
		name := et.String()
		if name == "Unknown" {
			t.Fatalf("event type %d has no name", et)
		}
		var back EventType
		if err := back.UnmarshalText([]byte(name)); err != nil || back != et {
			t.Errorf("%s reads back as %v (%v)", name, back, err)
		}
	}
	if EventType(0).String() != "Unknown" || eventTypeEnd.String() != "Unknown" {
		t.Error("an event type out of range has a name")
	}
	var et EventType
	if err := et.UnmarshalText([]byte("NoSuchEvent")); err == nil {
		t.Error("an unknown name was read without an error")
	}
}

func TestQueueKindText(t *testing.T) {
	for _, c := range []struct {
		in   string
		want QueueKind
	}{{"RealFIFO", RealFIFO}, {"deltafifo", DeltaFIFO}, {"delta", DeltaFIFO}, {"real", RealFIFO}} {
		var k QueueKind
		if err := k.UnmarshalText([]byte(c.in)); err != nil || k != c.want {
			t.Errorf("%q reads as %v (%v), want %v", c.in, k, err, c.want)
		}
	}
	var k QueueKind
	if err := k.UnmarshalText([]byte("lifo")); err == nil {
		t.Error("an unknown queue was read without an error")
	}
	if _, err := QueueKind(7).MarshalText(); err == nil {
		t.Error("an invalid queue kind was written")
	}
}
