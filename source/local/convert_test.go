package local

import (
	"encoding/json"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/fill"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
)

// The adapter carries every figure the engine has: the engine's snapshot
// is the model's informer, and the adapter adds what only it knows, so a
// full snapshot makes a model with no field left zero. An event, the one
// type the model keeps apart (it holds no object), carries every field
// but the object.
func TestAdapterCarriesEveryEngineField(t *testing.T) {
	texts := []string{"DeltaFIFO", "Distribute"}
	snap := fill.Value[engine.Snapshot](texts...)
	snap.Implementation = "" // the engine does not know whose it is
	model := InformerOf(snap)
	if model.Implementation != source.ImplementationEngine {
		t.Errorf("an engine informer's model says it is %q's", model.Implementation)
	}
	if zero := fill.Zero(model); len(zero) > 0 {
		t.Errorf("the adapter left %v of the model unfilled from a full engine snapshot", zero)
	}
	ev := fill.Value[instr.Event](texts...)
	ev.Obj = nil
	a, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(source.EventOf(ev))
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("the model's event differs from the engine's:\nengine %s\nmodel  %s", a, b)
	}
}

// An event's key is built from its object once, here, and a tombstone's
// distribution is a lifecycle event in the model as it is in the engine.
func TestEventOfBuildsTheKeyAndKnowsTombstones(t *testing.T) {
	tomb := cache.DeletedFinalStateUnknown{Key: "default/gone"}
	e := source.EventOf(instr.Event{Type: pipeline.EventDistribute, Detail: pipeline.CallbackDelete, Obj: tomb})
	if e.Key != "default/gone" || !e.Tombstone || !e.Lifecycle() {
		t.Errorf("a tombstone's distribution became %+v (lifecycle %t)", e, e.Lifecycle())
	}
	if e := source.EventOf(instr.Event{Type: pipeline.EventDistribute, Key: "default/here"}); e.Tombstone || e.Lifecycle() || e.Key != "default/here" {
		t.Errorf("an ordinary distribution became %+v", e)
	}
	if got := source.EventsOf(nil); got != nil {
		t.Errorf("no events became %v", got)
	}
}
