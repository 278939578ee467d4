package processor

import (
	"testing"
	"time"
)

// A handler stuck in a callback falls behind: the age of its oldest
// unhandled notification grows with the clock, moves on to the next one's
// as the backlog drains, and is 0 once everything is handled.
func TestOldestPendingAge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := New(Options{})
	// Each call announces itself on entered and returns on a token from turn.
	entered, turn := make(chan string, 4), make(chan struct{})
	l := p.NewListener(ListenerConfig{Name: "slow", Handler: &recorder{hook: func(call string) {
		entered <- call
		<-turn
	}}})
	p.AddListener(l, nil)
	run(t, p)
	t.Cleanup(func() { close(turn) }) // runs before run's cleanup stops the processor

	if age := l.Stats().OldestPendingAge(t0); age != 0 {
		t.Fatalf("idle listener is %v behind, want 0", age)
	}
	p.Distribute(add(obj("a", "1"), false), false)
	<-entered // a is in progress and stays there
	p.Checkpoint(t0)
	p.Distribute(add(obj("b", "2"), false), false)
	p.Checkpoint(t0.Add(10 * time.Second))
	p.Checkpoint(t0.Add(20 * time.Second)) // nothing new: no checkpoint

	for _, c := range []struct {
		at   time.Duration
		want time.Duration
	}{{5 * time.Second, 5 * time.Second}, {42 * time.Second, 42 * time.Second}} {
		if age := l.Stats().OldestPendingAge(t0.Add(c.at)); age != c.want {
			t.Fatalf("at t0+%v the blocked listener is %v behind, want %v (a, queued by t0)", c.at, age, c.want)
		}
	}

	// a returns; b, queued by t0+10s, is now the oldest and in progress.
	turn <- struct{}{}
	<-entered
	if age := l.Stats().OldestPendingAge(t0.Add(42 * time.Second)); age != 32*time.Second {
		t.Fatalf("with a handled and b in progress the listener is %v behind, want 32s", age)
	}
	turn <- struct{}{}
	delivered(t, l, 2)
	if s := l.Stats(); !s.OldestPendingSince.IsZero() || s.OldestPendingAge(t0.Add(time.Hour)) != 0 {
		t.Fatalf("drained listener: oldest pending since %v, want none", s.OldestPendingSince)
	}
}

// The checkpoints stay bounded however long a listener lags, and the
// oldest notification keeps its date.
func TestCheckpointsBounded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var c checkpoints
	for i := range 1000 {
		c.queued++
		c.note(1, t0.Add(time.Duration(i)*time.Second))
	}
	if len(c.list) > maxCheckpoints {
		t.Fatalf("%d checkpoints kept, want at most %d", len(c.list), maxCheckpoints)
	}
	if got := c.since(1); !got.Equal(t0) {
		t.Fatalf("oldest notification dated %v, want %v", got, t0)
	}
	if got := c.since(1000); got.Before(t0.Add(900*time.Second)) || got.After(t0.Add(999*time.Second)) {
		t.Fatalf("newest notification dated %v, want within the last thinning step of t0+999s", got)
	}
}
