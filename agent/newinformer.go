package agent

import (
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/instr"
	"github.com/informtop/informtop/engine/processor"
	"github.com/informtop/informtop/redact"
)

// informerEvents is how many events each informer NewInformer builds
// keeps for clients: client-go's informers log lifecycle events only
// (lists, watches, errors, stalls), so a small ring holds hours of them.
const informerEvents = 128

// An InformerOption changes what NewInformer builds.
type InformerOption func(*informerConfig)

type informerConfig struct {
	// engine builds informtop's engine into w (WithEngine); nil builds
	// client-go's informer. A function only WithEngine names, so that a
	// controller that never asks for the engine does not link its pipeline.
	engine    func(w *watched, lw cache.ListerWatcher, obj kruntime.Object, resync time.Duration, indexers cache.Indexers)
	name      string
	ring      *instr.Ring
	namespace string // InformerFor's
}

// WithEngine builds informtop's engine instead of client-go's informer:
// the whole pipeline in view (queue contents, steps, memory estimates,
// exact backlogs, cuts for --verify) at the engine's cost. The controller
// gets the engine's informer, a drop-in for client-go's.
func WithEngine() InformerOption { return func(c *informerConfig) { c.engine = buildEngine } }

// buildEngine makes w informtop's engine informer.
func buildEngine(w *watched, lw cache.ListerWatcher, obj kruntime.Object, resync time.Duration, indexers cache.Indexers) {
	w.eng = engine.NewSharedIndexInformerWithOptions(lw, obj, engine.Options{
		Name:            w.name,
		Resource:        w.resource,
		ResyncPeriod:    resync,
		Indexers:        indexers,
		Instrumentation: engine.Instrumentation{Events: w.ring},
	})
	w.eng.DescribeMutationsWith(redact.FieldChanges)
	w.SharedIndexInformer = w.eng
}

// WithName names the informer for clients; without it the informer is
// named after its resource ("pods", "deployments.apps", with
// " (metadata)" or " (unstructured)" for those kinds of objects), and
// " #2", " #3", … tell apart informers of one resource.
func WithName(name string) InformerOption { return func(c *informerConfig) { c.name = name } }

// WithEvents has the informer log its events to ring (with WithEngine,
// every item's passage; else lifecycle events and stalls) instead of a
// ring of its own: one ring for every informer, as informtop itself runs
// them, keeps one order across them.
func WithEvents(ring *instr.Ring) InformerOption { return func(c *informerConfig) { c.ring = ring } }

// NewInformer returns a function of exactly controller-runtime's
// cache.Options.NewInformer type that builds client-go's own
// SharedIndexInformer, unchanged in behaviour, and has the set serve it:
//
//	cache.Options{NewInformer: agent.NewInformer(set)}
//
// The agent sees it from outside: the ListerWatcher it is given (lists,
// watches, events, errors, freshness), each handler registered on it (the
// call in progress, its key and start, calls returned by kind, latency,
// HasSynced; a call stuck longer than source.StallAfter is reported with
// the code it is stuck in), client-go's queue metric (depth) and a
// listener of the agent's that counts what the informer distributes
// (handlers' backlogs, as lower bounds). Queue contents and steps need
// WithEngine. A nil set is one of its own, which no handler serves.
func NewInformer(set *Set, opts ...InformerOption) func(cache.ListerWatcher, kruntime.Object, time.Duration, cache.Indexers) cache.SharedIndexInformer {
	if set == nil {
		set = NewSet()
	}
	var cfg informerConfig
	for _, o := range opts {
		o(&cfg)
	}
	return func(lw cache.ListerWatcher, obj kruntime.Object, resync time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
		return set.build(lw, obj, resync, indexers, cfg)
	}
}

// build makes one informer, adds it to the set and returns it.
func (s *Set) build(lw cache.ListerWatcher, obj kruntime.Object, resync time.Duration, indexers cache.Indexers, cfg informerConfig) *watched {
	gvr, name := resourceOf(obj)
	if cfg.name != "" {
		name = cfg.name
	}
	w := &watched{name: name, resource: gvr.GroupResource().String(), gvr: gvr, namespace: cfg.namespace, ring: cfg.ring}
	if gvr.Resource == "" {
		w.resource = ""
	}
	if w.ring == nil {
		size := informerEvents
		if cfg.engine != nil {
			size = 0 // the engine logs every item's passage: its default
		}
		w.ring = instr.NewRing(size)
	}
	// The name is final once the set holds it: events carry it.
	s.addFree(w)
	if cfg.engine != nil {
		cfg.engine(w, lw, obj, resync, indexers)
		return w
	}
	w.observed = engine.ObserveListerWatcher(lw, w.name, w.ring)
	w.queue = &queueGauge{}
	w.counter = &counter{}
	w.realFIFO = inOrder()
	id := s.informerName().WithResource(schema.GroupVersionResource{Group: gvr.Group, Version: gvr.Version, Resource: w.name})
	w.SharedIndexInformer = cache.NewSharedIndexInformerWithOptions(w.observed.ListerWatcher(), obj, cache.SharedIndexInformerOptions{
		ResyncPeriod:            resync,
		Indexers:                indexers,
		Identifier:              id,
		InformerMetricsProvider: w.queue,
	})
	if err := w.SharedIndexInformer.SetWatchErrorHandlerWithContext(w.watchFailed); err != nil {
		klog.Background().Error(err, "informtop's agent cannot see this informer's watch errors", "informer", w.name)
	}
	// With the informer's default resync, as the handlers registered
	// without one: see watched.shareCounter.
	w.mu.Lock()
	w.resync, w.checkPeriod = resync, resync
	w.counterResync = w.requestedResync(nil)
	w.mu.Unlock()
	if _, err := w.SharedIndexInformer.AddEventHandlerWithOptions(w.counter, cache.HandlerOptions{Logger: &quiet}); err != nil {
		klog.Background().Error(err, "informtop's agent cannot count this informer's notifications", "informer", w.name)
	}
	return w
}

// resourceOf is the resource obj's kind is served as, guessed from its
// kind as client-go's generated code names resources, and the informer's
// default name. The kind comes from the object (unstructured and
// metadata-only objects carry it) or client-go's scheme; a type neither
// knows is named by its Go type.
func resourceOf(obj kruntime.Object) (schema.GroupVersionResource, string) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		if kinds, _, err := scheme.Scheme.ObjectKinds(obj); err == nil && len(kinds) > 0 {
			gvk = kinds[0]
		}
	}
	if gvk.Kind == "" {
		t := reflect.TypeOf(obj)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return schema.GroupVersionResource{}, strings.ToLower(t.Name())
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	name := gvr.GroupResource().String()
	switch obj.(type) {
	case *metav1.PartialObjectMetadata:
		name += " (metadata)"
	case kruntime.Unstructured:
		name += " (unstructured)"
	}
	return gvr, name
}

// listenerName names a handler as client-go's logs do (the engine's
// processor.HandlerName). controller-runtime's handlers are one generic
// type for every controller, so theirs is named after the resource
// watched (and told apart by " #2", …); the code a stalled call is in
// names it further.
func listenerName(h cache.ResourceEventHandler, resource string) string {
	t := reflect.TypeOf(h)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if strings.HasPrefix(t.PkgPath(), "sigs.k8s.io/controller-runtime/") {
		if resource == "" {
			resource = "objects"
		}
		return "controller-runtime · " + resource
	}
	return processor.HandlerName(h)
}
