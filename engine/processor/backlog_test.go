package processor

import (
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

func TestBacklogShowsWhatAListenerStillOwes(t *testing.T) {
	p := New(Options{})
	g := newGate()
	l := p.NewListener(ListenerConfig{Name: "slow", Handler: &recorder{hook: g.wait}})
	p.AddListener(l, []any{obj("a", "1")})
	run(t, p)
	t.Cleanup(g.release)
	<-g.entered // OnAdd a is in progress, so it is not owed any more

	p.Distribute(UpdateNotification{Old: obj("a", "1"), New: obj("a", "2")}, false)
	p.Distribute(UpdateNotification{Old: obj("b", "1"), New: obj("b", "1")}, true)
	p.Distribute(DeleteNotification{Obj: cache.DeletedFinalStateUnknown{Key: "ns/c", Obj: obj("c", "1")}}, false)

	want := []pipeline.Pending{
		{Callback: pipeline.CallbackUpdate, Key: "ns/a"},
		{Callback: pipeline.CallbackUpdate, Key: "ns/b", Sync: true},
		{Callback: pipeline.CallbackDelete, Key: "ns/c"},
	}
	if got := l.Backlog(10); !slices.Equal(got, want) {
		t.Fatalf("Backlog(10) = %+v, want %+v", got, want)
	}
	if got := l.Backlog(2); !slices.Equal(got, want[:2]) {
		t.Fatalf("Backlog(2) = %+v, want the 2 oldest %+v", got, want[:2])
	}
	if got := l.Backlog(0); got != nil {
		t.Fatalf("Backlog(0) = %+v, want nil", got)
	}
	g.release()
	delivered(t, l, 4)
	if got := l.Backlog(10); len(got) != 0 {
		t.Fatalf("drained listener still owes %+v", got)
	}
	if d := l.Stats().Delivered; d.Tombstones != 1 || d.Delete != 1 {
		t.Fatalf("Delivered = %+v, want the tombstone counted once in Delete and in Tombstones", d)
	}
}

func TestBacklogGrowsAndKeepsOrderAcrossTheRingsEnd(t *testing.T) {
	b := newBacklogOf(2)
	next := 0
	write := func(n int) {
		for range n {
			b.WriteOne(entry{n: add(obj(string(rune('a'+next%26)), "1"), false)})
			next++
		}
	}
	write(2)
	if _, ok := b.ReadOne(); !ok { // head moves off index 0, so the next writes wrap
		t.Fatal("ReadOne on a full ring found nothing")
	}
	write(3) // wraps, then grows
	var keys []string
	for _, p := range b.peek(10) {
		keys = append(keys, p.Key)
	}
	if want := []string{"ns/b", "ns/c", "ns/d", "ns/e"}; !slices.Equal(keys, want) {
		t.Fatalf("after wrapping and growing the backlog reads %q, want %q", keys, want)
	}
	for b.Len() > 0 {
		b.ReadOne()
	}
	// Drained, it keeps what it grew to, as client-go's RingGrowing does.
	if b.Cap() != 4 {
		t.Fatalf("drained backlog has capacity %d, want the 4 it grew to", b.Cap())
	}
}

func TestSyncedAtIsWhenTheRegistrationSynced(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(start)
	p := New(Options{Clock: clk})
	up := newUpstream()
	l := p.NewListener(ListenerConfig{Name: "l", Handler: &recorder{}, UpstreamSynced: up.check()})
	p.AddListener(l, []any{obj("a", "1")})
	run(t, p)
	delivered(t, l, 1)
	if s := l.Stats(); !s.SyncedAt.IsZero() {
		t.Fatalf("SyncedAt = %v before the informer synced, want zero", s.SyncedAt)
	}
	clk.Step(7 * time.Second)
	up.markSynced()
	synced(t, l)
	waitfor.True(t, "SyncedAt", func() bool { return !l.Stats().SyncedAt.IsZero() })
	if got, want := l.Stats().SyncedAt, start.Add(7*time.Second); !got.Equal(want) {
		t.Fatalf("SyncedAt = %v, want %v (when upstream synced)", got, want)
	}
}
