package processor

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

func TestRemoveListenerDropsBacklogAndIsIdempotent(t *testing.T) {
	p := New(Options{})
	g := newGate()
	h := &recorder{hook: g.wait}
	other := &recorder{}
	l := p.NewListener(ListenerConfig{Name: "removed", Handler: h})
	keep := p.NewListener(ListenerConfig{Name: "kept", Handler: other})
	p.AddListener(l, nil)
	p.AddListener(keep, nil)
	run(t, p)
	t.Cleanup(g.release)

	for _, name := range []string{"a", "b", "c", "d", "e"} {
		p.Distribute(add(obj(name, "1"), false), false)
	}
	<-g.entered
	waitfor.True(t, "backlog of 4", func() bool { return l.Stats().Pending == 4 })

	if err := p.RemoveListener(l); err != nil {
		t.Fatalf("RemoveListener: %v", err)
	}
	if err := p.RemoveListener(l); err != nil {
		t.Fatalf("second RemoveListener: %v", err)
	}
	if s := l.Stats(); s.Pending != 0 || s.Capacity != 0 {
		t.Fatalf("after removal Pending=%d Capacity=%d, want the backlog dropped", s.Pending, s.Capacity)
	}
	if ls := p.Listeners(); len(ls) != 1 || ls[0] != keep {
		t.Fatalf("Listeners() after removal = %v", ls)
	}
	p.Distribute(add(obj("f", "1"), false), false)

	g.release()
	<-l.ShutdownChan() // the callback in progress returned and nothing else will run
	equalCalls(t, "removed", h.seen(), []string{"add a@1 initial=false"})
	delivered(t, keep, 6)
	if got := len(other.seen()); got != 6 {
		t.Fatalf("kept listener saw %d calls, want 6", got)
	}
}

func TestRemoveListenerNeverStarted(t *testing.T) {
	p := New(Options{})
	l := p.NewListener(ListenerConfig{Handler: &recorder{}})
	p.AddListener(l, []any{obj("a", "1")})
	if err := p.RemoveListener(l); err != nil {
		t.Fatal(err)
	}
	<-l.ShutdownChan() // closed at once: no goroutine ever ran
	if l.HasSynced() {
		t.Fatal("a listener removed with its initial list undelivered reports synced")
	}
}

type foreignRegistration struct{}

func (foreignRegistration) HasSynced() bool                     { return true }
func (foreignRegistration) HasSyncedChecker() cache.DoneChecker { return nil }

func TestRemoveListenerRejectsForeignHandles(t *testing.T) {
	p := New(Options{})
	if err := p.RemoveListener(foreignRegistration{}); err == nil {
		t.Fatal("RemoveListener accepted a handle that is not a *Listener")
	}
	if err := p.RemoveListener(nil); err == nil {
		t.Fatal("RemoveListener accepted nil")
	}
	other := New(Options{})
	l := other.NewListener(ListenerConfig{Handler: &recorder{}})
	other.AddListener(l, nil)
	if err := p.RemoveListener(l); err != nil {
		t.Fatalf("RemoveListener of another processor's listener: %v, want nil", err)
	}
	if len(other.Listeners()) != 1 {
		t.Fatal("removing through the wrong processor unregistered the listener")
	}
}
