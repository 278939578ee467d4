package processor

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// synced waits for the registration's checker to be done.
func synced(t *testing.T, l *Listener) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !cache.WaitFor(ctx, "", l.HasSyncedChecker()) {
		t.Fatalf("%s never synced", l.Name())
	}
}

func TestRegistrationSyncWaitsForInitialOnAdds(t *testing.T) {
	events := newSink()
	p := New(Options{Informer: "pods", Sink: events.Ring})
	up := newUpstream()
	g := newGate()
	h := &recorder{hook: func(call string) {
		if call == "add a@1 initial=true" {
			g.wait(call)
		}
	}}
	l := p.NewListener(ListenerConfig{Name: "blocked", Handler: h, UpstreamSynced: up.check()})
	p.AddListener(l, nil)
	run(t, p)
	t.Cleanup(g.release)

	p.Distribute(add(obj("a", "1"), true), false)
	p.Distribute(add(obj("b", "1"), true), false)
	<-g.entered
	up.markSynced()
	if l.HasSynced() || l.Stats().Synced {
		t.Fatal("synced while the first initial OnAdd has not returned")
	}

	g.release()
	synced(t, l)
	if !l.HasSynced() || !l.Stats().Synced {
		t.Fatal("HasSynced/Stats disagree with the checker")
	}
	equalCalls(t, "blocked", h.seen(), []string{"add a@1 initial=true", "add b@1 initial=true"})
	// The event follows the tracker's transition, so it may trail HasSynced.
	waitfor.True(t, "EventSynced", func() bool { return len(events.ofType(pipeline.EventSynced)) > 0 })
	got := events.ofType(pipeline.EventSynced)
	if len(got) != 1 || got[0].Listener != "blocked" || got[0].Informer != "pods" {
		t.Fatalf("EventSynced events = %+v, want exactly one for blocked", got)
	}
	want := "test informer + event handler blocked"
	if name := l.HasSyncedChecker().Name(); name != want {
		t.Fatalf("checker name %q, want %q", name, want)
	}
}

func TestRegistrationSyncWaitsForUpstream(t *testing.T) {
	p := New(Options{})
	up := newUpstream()
	h := &recorder{}
	l := p.NewListener(ListenerConfig{Name: "l", Handler: h, UpstreamSynced: up.check()})
	p.AddListener(l, nil)
	run(t, p)

	p.Distribute(add(obj("a", "1"), true), false)
	p.Distribute(add(obj("b", "1"), true), false)
	delivered(t, l, 2)
	if l.HasSynced() {
		t.Fatal("synced before upstream")
	}
	up.markSynced()
	synced(t, l)
}

func TestLateListenerGetsInitialListFirst(t *testing.T) {
	p := New(Options{})
	first := &recorder{}
	l1 := p.NewListener(ListenerConfig{Name: "first", Handler: first})
	p.AddListener(l1, nil)
	run(t, p)
	p.Distribute(add(obj("a", "1"), true), false)
	delivered(t, l1, 1)

	up := newUpstream()
	up.markSynced()
	late := &recorder{}
	l2 := p.NewListener(ListenerConfig{Name: "late", Handler: late, UpstreamSynced: up.check()})
	if started := p.AddListener(l2, []any{obj("a", "1"), obj("b", "1")}); !started {
		t.Fatal("AddListener on a running processor reported not started")
	}
	p.Distribute(UpdateNotification{Old: obj("a", "1"), New: obj("a", "2")}, false)

	delivered(t, l2, 3)
	equalCalls(t, "late", late.seen(), []string{"add a@1 initial=true", "add b@1 initial=true", "update a@1->a@2"})
	synced(t, l2)
	delivered(t, l1, 2)
	equalCalls(t, "first", first.seen(), []string{"add a@1 initial=true", "update a@1->a@2"})
	if names := []string{p.Stats()[0].Name, p.Stats()[1].Name}; names[0] != "first" || names[1] != "late" {
		t.Fatalf("Stats order %v, want registration order", names)
	}
}
