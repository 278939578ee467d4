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

// The adapter carries every figure the engine has: the engine's JSON and
// the model's JSON of the same state are the same document, field for
// field, so nothing the engine counts is lost on the way to the dashboard
// or the wire.
func TestAdapterCarriesEveryEngineField(t *testing.T) {
	texts := []string{"DeltaFIFO", "Distribute"}
	same := func(name string, engineSide, model any) {
		t.Helper()
		a, err := json.Marshal(engineSide)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(model)
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s: the model differs from the engine:\nengine %s\nmodel  %s", name, a, b)
		}
	}
	snap := fill.Value[engine.Snapshot](texts...)
	model := InformerOf(snap)
	if model.Implementation != source.ImplementationEngine {
		t.Errorf("an engine informer's model says it is %q's", model.Implementation)
	}
	model.Implementation = "" // the one field only the model has
	same("informer", snap, model)
	ev := fill.Value[instr.Event](texts...)
	ev.Obj = nil
	same("event", ev, source.EventOf(ev))
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
