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

	"github.com/informtop/informtop/agent/instr"
)

// informerEvents is how many events each informer NewInformer builds
// keeps for clients: client-go's informers log lifecycle events only
// (lists, watches, errors, stalls), so a small ring holds hours of them.
const informerEvents = 128

// An InformerOption changes what NewInformer builds.
type InformerOption func(*informerConfig)

type informerConfig struct {
	name      string
	gvr       schema.GroupVersionResource // WithResource's, or the client's
	namespace string                      // InformerFor's
}

// WithName names the informer for clients; without it the informer is
// named after its resource ("pods", "deployments.apps", with
// " (metadata)" or " (unstructured)" for those kinds of objects), and
// " #2", " #3", … tell apart informers of one resource.
func WithName(name string) InformerOption { return func(c *informerConfig) { c.name = name } }

// WithResource says which resource the informer lists and watches, for
// its name and its metric labels, where neither client-go's scheme nor
// the client knows the type (a type whose scheme is registered after the
// informer is built, an unstructured object without its kind).
func WithResource(gvr schema.GroupVersionResource) InformerOption {
	return func(c *informerConfig) { c.gvr = gvr }
}

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
// the code it is stuck in) and a listener of the agent's that counts what
// the informer distributes (handlers' backlogs, as lower bounds). The
// queue between the watch and the handlers stays client-go's own. A nil
// set is one of its own, which no handler serves.
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
	gvr, name := resourceOf(obj, cfg.gvr)
	if cfg.name != "" {
		name = cfg.name
	}
	w := &watched{name: name, resource: gvr.GroupResource().String(), gvr: gvr, namespace: cfg.namespace, ring: instr.NewRing(informerEvents)}
	if gvr.Resource == "" {
		w.resource = ""
	}
	// The name is final once the set holds it: events carry it.
	s.addFree(w)
	w.observed = instr.ObserveListerWatcher(lw, w.name, w.ring)
	w.counter = &counter{}
	w.realFIFO = inOrder()
	w.SharedIndexInformer = cache.NewSharedIndexInformerWithOptions(w.observed.ListerWatcher(), obj, cache.SharedIndexInformerOptions{
		ResyncPeriod: resync,
		Indexers:     indexers,
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

// resourceOf is the resource obj's kind is served as, and the informer's
// default name: known is WithResource's or the client's (a group and
// version at least), else the kind comes from the object (unstructured
// and metadata-only objects carry it) or client-go's scheme, and the
// resource is guessed from it as client-go's generated code names
// resources. A type nobody knows is named by its Go type.
func resourceOf(obj kruntime.Object, known schema.GroupVersionResource) (schema.GroupVersionResource, string) {
	gvr := known
	if gvr.Resource == "" {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" {
			if kinds, _, err := scheme.Scheme.ObjectKinds(obj); err == nil && len(kinds) > 0 {
				gvk = kinds[0]
			}
		}
		if gvk.Kind == "" && !known.GroupVersion().Empty() {
			// The client's group and version, and the Go type's name: a
			// generated clientset's type, as its scheme would name it.
			gvk = known.GroupVersion().WithKind(typeName(obj))
		}
		if gvk.Kind == "" {
			return schema.GroupVersionResource{}, strings.ToLower(typeName(obj))
		}
		gvr, _ = meta.UnsafeGuessKindToResource(gvk)
	}
	name := gvr.GroupResource().String()
	switch obj.(type) {
	case *metav1.PartialObjectMetadata:
		name += " (metadata)"
	case kruntime.Unstructured:
		name += " (unstructured)"
	}
	return gvr, name
}

// typeName is the name of obj's Go type.
func typeName(obj kruntime.Object) string {
	t := reflect.TypeOf(obj)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// listenerName names a handler as client-go's logs do (instr's
// processor.HandlerName). controller-runtime's handlers are one generic
// type for every controller, so theirs is named after the resource
// watched, controller-runtime/configmaps (and told apart by " #2", …);
// the code a stalled call is in names it further. The name is a metric
// label's value too, so it holds nothing a matcher must escape.
func listenerName(h cache.ResourceEventHandler, resource string) string {
	t := reflect.TypeOf(h)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if strings.HasPrefix(t.PkgPath(), "sigs.k8s.io/controller-runtime/") {
		if resource == "" {
			resource = "objects"
		}
		return "controller-runtime/" + resource
	}
	return instr.HandlerName(h)
}
