package processor

import (
	"fmt"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
)

func TestDeliversEveryKindInOrder(t *testing.T) {
	p := New(Options{Informer: "pods"})
	h := &recorder{}
	l := p.NewListener(ListenerConfig{Name: "rec", Handler: h})
	if started := p.AddListener(l, nil); started {
		t.Fatal("AddListener before Run reported started")
	}

	// Notifications distributed before Run wait in the backlog.
	p.Distribute(add(obj("a", "1"), true), false)
	p.Distribute(add(obj("b", "1"), true), false)
	run(t, p)
	p.Distribute(UpdateNotification{Old: obj("a", "1"), New: obj("a", "2")}, false)
	p.Distribute(DeleteNotification{Obj: obj("b", "1")}, false)
	p.Distribute(add(obj("c", "3"), false), false)
	p.Distribute(DeleteNotification{Obj: cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: obj("x", "1")}}, false)

	delivered(t, l, 6)
	equalCalls(t, "rec", h.seen(), []string{
		"add a@1 initial=true",
		"add b@1 initial=true",
		"update a@1->a@2",
		"delete b@1",
		"add c@3 initial=false",
		"delete tombstone(ns/x)",
	})
	if got, want := l.Stats().Delivered, (pipeline.Delivered{Add: 3, Update: 1, Delete: 2, Tombstones: 1}); got != want {
		t.Fatalf("Delivered = %+v, want %+v", got, want)
	}
}

func TestSlowHandlerDoesNotHoldBackOthers(t *testing.T) {
	const n = 3000
	p := New(Options{})
	g := newGate()
	slowH := &recorder{hook: func(call string) {
		if call == "add obj-0000@1 initial=false" {
			g.wait(call)
		}
	}}
	fastH := &recorder{}
	slow := p.NewListener(ListenerConfig{Name: "slow", Handler: slowH})
	fast := p.NewListener(ListenerConfig{Name: "fast", Handler: fastH})
	p.AddListener(slow, nil)
	p.AddListener(fast, nil)
	run(t, p)
	t.Cleanup(g.release)

	var want []string
	for i := range n {
		o := obj(fmt.Sprintf("obj-%04d", i), "1")
		want = append(want, fmt.Sprintf("add %s initial=false", describe(o)))
		p.Distribute(add(o, false), false)
		if i == 0 {
			// Once the slow handler holds the first item, the rest all queue up.
			<-g.entered
		}
	}

	delivered(t, fast, n)
	equalCalls(t, "fast", fastH.seen(), want)

	s := slow.Stats()
	if s.Pending != n-1 || s.HighWater != n-1 || s.Capacity != 4096 || s.Delivered.Total() != 0 {
		t.Fatalf("stalled slow listener: Pending=%d HighWater=%d Capacity=%d Delivered=%d, want %d, %d, 4096, 0",
			s.Pending, s.HighWater, s.Capacity, s.Delivered.Total(), n-1, n-1)
	}
	if s.InCallback != pipeline.CallbackAdd || s.InCallbackKey != "ns/obj-0000" {
		t.Fatalf("slow listener in %q on %q, want OnAdd on ns/obj-0000", s.InCallback, s.InCallbackKey)
	}
	if fs := fast.Stats(); fs.Pending != 0 || fs.InCallback != "" {
		t.Fatalf("fast listener: Pending=%d InCallback=%q, want 0 and none", fs.Pending, fs.InCallback)
	}

	g.release()
	delivered(t, slow, n)
	equalCalls(t, "slow", slowH.seen(), want)
	s = slow.Stats()
	// Drained, the backlog keeps what the burst made it grow to: client-go's
	// RingGrowing only grows (the Listeners view showed 2,048 → 1,024).
	if s.Pending != 0 || s.HighWater != n-1 || s.Capacity != 4096 || s.Delivered.Add != n || s.InCallback != "" {
		t.Fatalf("drained slow listener: %+v", s)
	}
}
