package processor

import (
	"context"
	"fmt"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// obj builds a namespaced object with a resourceVersion; its key is "ns/name".
func obj(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// describe renders an object handed to a handler for exact comparisons.
func describe(o any) string {
	switch o := o.(type) {
	case *metav1.PartialObjectMetadata:
		return o.Name + "@" + o.ResourceVersion
	case cache.DeletedFinalStateUnknown:
		return "tombstone(" + o.Key + ")"
	}
	return fmt.Sprintf("%v", o)
}

// recorder is a handler that records each call as it starts, then runs the
// optional hook (to block, step a clock or panic) inside the callback.
type recorder struct {
	hook func(call string)

	mu    sync.Mutex
	calls []string
}

func (r *recorder) record(call string) {
	r.mu.Lock()
	r.calls = append(r.calls, call)
	r.mu.Unlock()
	if r.hook != nil {
		r.hook(call)
	}
}

func (r *recorder) OnAdd(o any, initial bool) {
	r.record(fmt.Sprintf("add %s initial=%t", describe(o), initial))
}
func (r *recorder) OnUpdate(old, new any) {
	r.record(fmt.Sprintf("update %s->%s", describe(old), describe(new)))
}
func (r *recorder) OnDelete(o any) { r.record("delete " + describe(o)) }

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// gate blocks handler calls until opened; entered receives each call that
// reached the gate.
type gate struct {
	open    chan struct{}
	entered chan string
	once    sync.Once
}

func newGate() *gate { return &gate{open: make(chan struct{}), entered: make(chan string, 16)} }

func (g *gate) wait(call string) {
	g.entered <- call
	<-g.open
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// upstream is a controllable informer HasSyncedChecker.
type upstream struct {
	ch   chan struct{}
	once sync.Once
}

func newUpstream() *upstream                 { return &upstream{ch: make(chan struct{})} }
func (u *upstream) Name() string             { return "test informer" }
func (u *upstream) Done() <-chan struct{}    { return u.ch }
func (u *upstream) markSynced()              { u.once.Do(func() { close(u.ch) }) }
func (u *upstream) check() cache.DoneChecker { return u }

// sink collects events in a ring large enough for any test here.
type sink struct{ *instr.Ring }

func newSink() sink { return sink{instr.NewRing(1 << 16)} }

func (s sink) ofType(t instr.EventType) []instr.Event {
	var out []instr.Event
	for _, e := range s.Recent(-1) {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// run starts p.Run in the background and waits until it is running. The
// returned stop cancels it and waits for Run to return; it also runs at
// cleanup, so register anything that must happen before it (releasing
// gates) after calling run.
func run(t *testing.T, p *Processor) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()
	stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	waitfor.True(t, "processor running", func() bool {
		p.mu.RLock()
		defer p.mu.RUnlock()
		return p.state == running
	})
	return stop
}

// delivered waits until l's handler has returned from n calls.
func delivered(t *testing.T, l *Listener, n uint64) {
	t.Helper()
	waitfor.True(t, fmt.Sprintf("%s to deliver %d", l.Name(), n), func() bool {
		return l.Stats().Delivered.Total() >= n
	})
}

func equalCalls(t *testing.T, who string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d calls, want %d:\ngot  %q\nwant %q", who, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: call %d is %q, want %q\ngot  %q\nwant %q", who, i, got[i], want[i], got, want)
		}
	}
}

func add(o any, initial bool) AddNotification {
	return AddNotification{Obj: o, IsInInitialList: initial}
}
