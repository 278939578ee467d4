package agent

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/shared/fill"
	"github.com/informtop/informtop/agent/source"
)

// What an agent cannot know of a handler registration on client-go's
// informer: the backlog's size (client-go keeps it to itself), the
// registration's sync (a running informer's, absent here), and what only
// the engine's mutation attribution and panic capture see.
var agentCannotKnow = []string{"Capacity", "Synced", "SyncedAt", "LastPanic", "CacheMutations", "LastCacheMutation"}

// A probe in the middle of a call fills every listener field an agent can
// know, through the same reading the engine's listeners fill theirs with
// (instr.CallReading): a field added to the model shows here until the
// agent fills it or says why it cannot.
func TestProbeFillsEveryListenerFieldItCanKnow(t *testing.T) {
	w := &watched{name: "pods", ring: instr.NewRing(informerEvents)}
	p := newProbe(w, "reconciler", nop{})
	p.requested = time.Minute
	p.counter = &counter{}
	p.counter.n.Store(5)
	p.busy, p.call, p.since = true, 1, fill.When
	p.obj = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"}}
	p.delivered = fill.Value[source.Delivered]()
	p.latency[0], p.latency[1], p.latencyN = time.Millisecond, 3*time.Millisecond, 2
	p.panics, p.taken = 1, 2
	p.frame = &source.StackFrame{Function: "main.reconcile", File: "/src/main.go", Line: 42}

	l := p.model(10 * time.Second)
	for _, f := range fill.Zero(l) {
		if !slices.Contains(agentCannotKnow, f) {
			t.Errorf("the agent left %s unfilled", f)
		}
	}
	if l.InCallbackKey != "team/web" || l.Pending != 3 || !l.PendingEstimated || l.Frame.Function != "main.reconcile" {
		t.Errorf("the probe reads %+v", l)
	}
}
