package processor

import (
	"context"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestRunStopsEverythingOnCancel(t *testing.T) {
	p := New(Options{})
	h := &recorder{}
	l := p.NewListener(ListenerConfig{Name: "l", Handler: h})
	p.AddListener(l, nil)
	stop := run(t, p)
	p.Distribute(add(obj("a", "1"), false), false)
	delivered(t, l, 1)

	stop()
	goleak.VerifyNone(t)
	<-l.ShutdownChan()

	// A stopped processor delivers nothing and resyncs nobody.
	p.Distribute(add(obj("b", "1"), false), false)
	if s := l.Stats(); s.Pending != 0 {
		t.Fatalf("Pending = %d after stop, want 0", s.Pending)
	}
	if p.ShouldResync() {
		t.Fatal("ShouldResync() = true after stop")
	}
	late := p.NewListener(ListenerConfig{Name: "late", Handler: &recorder{}})
	if p.AddListener(late, []any{obj("x", "1")}) {
		t.Fatal("AddListener after stop reported started")
	}
	<-late.ShutdownChan() // inert from the start
	if s := late.Stats(); s.Pending != 0 {
		t.Fatalf("listener added after stop holds %d notifications", s.Pending)
	}
	// Run is one-shot: a second call returns at once, starting nothing.
	p.Run(context.Background())
	goleak.VerifyNone(t)
	equalCalls(t, "l", h.seen(), []string{"add a@1 initial=false"})
}

func TestStuckHandlerKeepsRunFromReturning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Options{})
		release := make(chan struct{})
		entered := make(chan struct{})
		l := p.NewListener(ListenerConfig{Name: "stuck", Handler: &recorder{hook: func(string) {
			close(entered)
			<-release
		}}})
		p.AddListener(l, nil)
		ctx, cancel := context.WithCancel(context.Background())
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			p.Run(ctx)
		}()
		p.Distribute(add(obj("a", "1"), false), false)
		<-entered

		cancel()
		synctest.Wait() // every goroutine is now blocked for good
		select {
		case <-returned:
			t.Fatal("Run returned while a handler was still in its callback")
		default:
		}
		close(release)
		<-returned
		<-l.ShutdownChan()
	})
}
