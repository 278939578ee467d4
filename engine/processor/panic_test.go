package processor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// noCrash makes handler panics recoverable for the rest of the test. Call it
// before run so that the restore happens after the processor has stopped.
func noCrash(t *testing.T) {
	old := utilruntime.ReallyCrash
	utilruntime.ReallyCrash = false
	t.Cleanup(func() { utilruntime.ReallyCrash = old })
}

func panicOn(call string) func(string) {
	return func(c string) {
		if c == call {
			panic("boom")
		}
	}
}

func TestPanicIsRecoveredAndCounted(t *testing.T) {
	noCrash(t)
	events := newSink()
	p := New(Options{Informer: "pods", Sink: events.Ring, CallbackEvents: true})
	h := &recorder{hook: panicOn("add bad@1 initial=false")}
	l := p.NewListener(ListenerConfig{Name: "panicky", Handler: h})
	p.AddListener(l, nil)
	run(t, p)

	p.Distribute(add(obj("good1", "1"), false), false)
	p.Distribute(add(obj("bad", "1"), false), false)
	p.Distribute(add(obj("good2", "1"), false), false)
	delivered(t, l, 2)
	waitfor.True(t, "bad call to finish", func() bool { return l.Stats().InCallback == "" })

	equalCalls(t, "panicky", h.seen(), []string{"add good1@1 initial=false", "add bad@1 initial=false", "add good2@1 initial=false"})
	s := l.Stats()
	if s.Panics != 1 || s.LastPanic != "boom" || s.Delivered != (pipeline.Delivered{Add: 2}) {
		t.Fatalf("Panics=%d LastPanic=%q Delivered=%+v, want 1, boom, 2 adds", s.Panics, s.LastPanic, s.Delivered)
	}
	got := events.ofType(pipeline.EventHandlerPanic)
	if len(got) != 1 || got[0].Listener != "panicky" || got[0].Key != "ns/bad" || got[0].Detail != "OnAdd: boom" {
		t.Fatalf("panic events %+v", got)
	}
	waitfor.True(t, "finish of good2", func() bool { return len(events.ofType(pipeline.EventHandlerFinish)) >= 2 })
	var finished []string
	for _, e := range events.ofType(pipeline.EventHandlerFinish) {
		finished = append(finished, e.Key)
	}
	equalCalls(t, "finish events", finished, []string{"ns/good1", "ns/good2"})
}

// As in client-go (kubernetes#129024), an initial-list OnAdd that panics
// never counts as returned, so the registration does not sync.
func TestPanicInInitialAddKeepsRegistrationUnsynced(t *testing.T) {
	noCrash(t)
	p := New(Options{})
	h := &recorder{hook: panicOn("add bad@1 initial=true")}
	l := p.NewListener(ListenerConfig{Name: "l", Handler: h, UpstreamSynced: newUpstream().check()})
	p.AddListener(l, nil)
	run(t, p)

	p.Distribute(add(obj("bad", "1"), true), false)
	p.Distribute(add(obj("good", "1"), true), false)
	delivered(t, l, 1)
	// What watchSynced does once the informer syncs, done here so the
	// assertion does not depend on that goroutine having run yet.
	l.tracker.UpstreamHasSynced()
	if l.HasSynced() {
		t.Fatal("synced although an initial OnAdd panicked")
	}
	if s := l.Stats(); s.Panics != 1 || s.Delivered.Add != 1 {
		t.Fatalf("Panics=%d adds=%d, want 1 and 1", s.Panics, s.Delivered.Add)
	}
}

const crashChildEnv = "INFORMTOP_PROCESSOR_CRASH_CHILD"

// With ReallyCrash (client-go's default) a handler panic crashes the
// process, after utilruntime has logged it. The crash happens in a child
// process running this same test.
func TestPanicCrashesWhenReallyCrash(t *testing.T) {
	if os.Getenv(crashChildEnv) == "1" {
		utilruntime.ReallyCrash = true
		p := New(Options{})
		l := p.NewListener(ListenerConfig{Name: "crasher", Handler: &recorder{hook: panicOn("add bad@1 initial=false")}})
		p.AddListener(l, nil)
		p.Distribute(add(obj("bad", "1"), false), false)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p.Run(ctx) // must not get to return
		os.Exit(0)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestPanicCrashesWhenReallyCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("child exited with %v, want a crash (exit status 2); output:\n%s", err, out)
	}
	for _, want := range []string{"Observed a panic", "panic: boom"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("child output lacks %q:\n%s", want, out)
		}
	}
}
