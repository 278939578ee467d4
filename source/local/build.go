package local

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
)

// InformerSpec describes an informer a source runs in this process: what
// it lists and watches, and how much of its pipeline it narrates. It is
// how the demo, a cluster and a replay build informers without speaking
// the engine's own options.
type InformerSpec struct {
	// Name is what the dashboard calls it; Resource what it watches
	// ("pods", "widgets.example.com"), which also decides redaction.
	Name, Resource string
	// Namespace, Group and Version say what it watches, as the model's
	// Informer has them.
	Namespace, Group, Version string
	Queue                     source.QueueKind
	ListerWatcher             cache.ListerWatcher
	// Example is an object of the type listed (nil for unstructured).
	Example      runtime.Object
	ResyncPeriod time.Duration
	// Indexers default to the namespace index.
	Indexers cache.Indexers
	// ItemEvents narrates every item's way through (teaching rates only);
	// TapWatchStreams counts watch events as they arrive.
	ItemEvents, TapWatchStreams bool
	// MutationAttribution finds handlers that write into the cache; their
	// changes are listed with secret values hidden (redact.FieldChanges)
	// unless DescribeMutation says otherwise.
	MutationAttribution bool
	DescribeMutation    func(resource string, before, after any) []string
	// NoUpkeep turns off the once-a-second bookkeeping (benchmarks).
	NoUpkeep bool
}

// DefaultEngineRingSize is the engine's own event ring size: what a lone
// informer keeps, for sources at real rates that log lifecycle events only.
const DefaultEngineRingSize = instr.DefaultRingSize

// TransformMeter measures what a transform removes from a sample of
// objects, for the memory view (Informer.MeterTransform). It wraps the
// engine's meter so that the engine's type stays inside this package.
type TransformMeter struct{ m *engine.TransformMeter }

// Sample reports whether the object at resourceVersion rv is one to
// measure; a transform then calls Removed.
func (t *TransformMeter) Sample(rv string) bool { return t.m.Sample(rv) }

// Removed records the bytes a sampled object lost (0 when nothing).
func (t *TransformMeter) Removed(bytes int) { t.m.Removed(bytes) }

// NewInformer builds the informer spec describes, its events going to the
// source's log, and adds it (see AddInformer).
func (s *Source) NewInformer(spec InformerSpec) (*Informer, error) {
	if spec.ListerWatcher == nil {
		return nil, errors.New("an informer needs a ListerWatcher")
	}
	inf := s.build(spec)
	e, err := s.AddInformer(spec.Name, spec.Resource, spec.Queue, inf)
	if err == nil {
		e.namespace, e.group, e.version = spec.Namespace, spec.Group, spec.Version
	}
	return e, err
}

// build makes the engine informer spec describes, its events going to the
// source's log.
func (s *Source) build(spec InformerSpec) *engine.Informer {
	idx := spec.Indexers
	if idx == nil {
		idx = cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	}
	return engine.NewSharedIndexInformerWithOptions(spec.ListerWatcher, spec.Example, engine.Options{
		Name:         spec.Name,
		Resource:     spec.Resource,
		ResyncPeriod: spec.ResyncPeriod,
		Indexers:     idx,
		Queue:        spec.Queue,
		Instrumentation: engine.Instrumentation{Events: s.events, ItemEvents: spec.ItemEvents, TapWatchStreams: spec.TapWatchStreams,
			MutationAttribution: spec.MutationAttribution, DescribeMutation: spec.DescribeMutation, NoUpkeep: spec.NoUpkeep},
	})
}

// MeterTransform returns a meter for the named transform
// (source.TransformStripManagedFields, …): what it measures shows in the
// informer's memory figures.
func (e *Informer) MeterTransform(name string) *TransformMeter {
	return &TransformMeter{m: e.inf.MeterTransform(name)}
}

// SetTransform sets the informer's transform; only before it runs.
func (e *Informer) SetTransform(t cache.TransformFunc) error { return e.inf.SetTransform(t) }

// State is the informer's state in source's model.
func (e *Informer) State() source.Informer { return e.model(e.inf.Snapshot()) }

// model is a snapshot of e in the model, with what e watches.
func (e *Informer) model(s engine.Snapshot) source.Informer {
	m := InformerOf(s)
	m.Namespace, m.Group, m.Version = e.namespace, e.group, e.version
	return m
}
