package agent

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
)

// The frame a user is shown is their own code: the Go runtime and
// standard library, client-go, apimachinery, controller-runtime and
// informtop's own frames between the informer and it are skipped.
func TestUserCodeSkipsTheFrameworks(t *testing.T) {
	for fn, want := range map[string]bool{
		"main.blockIfLabelled":                                           true,
		"main.(*Controller).misbehave":                                   true,
		"example.com/shop/controllers.(*CartReconciler).predicate.func1": true,
		"github.com/acme/operator/pkg/handler.Enqueue[...]":              true,
		"github.com/informtop/informtop/agent_test.holdUntil":            true,
		"runtime.gopark":           false,
		"time.Sleep":               false,
		"sync.(*Mutex).Lock":       false,
		"net/http.(*Client).Do":    false,
		"internal/poll.(*FD).Read": false,
		"k8s.io/client-go/tools/cache.(*processorListener).run.func1":                   false,
		"k8s.io/apimachinery/pkg/util/wait.BackoffUntil":                                false,
		"sigs.k8s.io/controller-runtime/pkg/internal/source.(*EventHandler[...]).OnAdd": false,
		"github.com/informtop/informtop/agent.(*probe).OnAdd":                           false,
	} {
		if got := userCode(fn); got != want {
			t.Errorf("userCode(%q) = %t, want %t", fn, got, want)
		}
	}
}

// nop is a handler that does nothing, to measure what a probe adds.
type nop struct{}

func (nop) OnAdd(any, bool)   {}
func (nop) OnUpdate(any, any) {}
func (nop) OnDelete(any)      {}

// What a probe adds to each handler call, beside the bare call: no
// allocation, and the time is reported side by side.
func BenchmarkHandlerCall(b *testing.B) {
	obj := &struct{}{}
	run := func(b *testing.B, h cache.ResourceEventHandler) {
		b.ReportAllocs()
		for b.Loop() {
			h.OnAdd(obj, false)
		}
	}
	b.Run("bare", func(b *testing.B) { run(b, nop{}) })
	b.Run("probed", func(b *testing.B) {
		w := &watched{name: "bench", ring: instr.NewRing(informerEvents)}
		run(b, newProbe(w, "nop", nop{}))
	})
}

// A probe's call allocates nothing: the agent adds no garbage to a
// controller's busiest path.
func TestProbeCallAllocatesNothing(t *testing.T) {
	w := &watched{name: "allocs", ring: instr.NewRing(informerEvents)}
	p := newProbe(w, "nop", nop{})
	obj := &struct{}{}
	if n := testing.AllocsPerRun(1000, func() { p.OnAdd(obj, false); p.OnUpdate(obj, obj); p.OnDelete(obj) }); n != 0 {
		t.Errorf("a probed call allocates %v times; want 0", n)
	}
}
