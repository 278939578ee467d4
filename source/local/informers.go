package local

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
	"github.com/informtop/informtop/engine"
)

// Informer is one named informer of a Source and its simulated listeners.
type Informer struct {
	name     string
	resource string
	// namespace, group and version are the spec's; set before Run.
	namespace, group, version string
	queue                     engine.QueueKind
	inf                       *engine.Informer
	listeners                 []*listenerEntry // guarded by Source.mu, in registration order
	// cancel stops the informer once it runs; guarded by Source.mu.
	cancel context.CancelFunc
}

// Name is the informer's name in snapshots and controls.
func (i *Informer) Name() string { return i.name }

// Resource is the resource the informer watches, e.g. "pods".
func (i *Informer) Resource() string { return i.resource }

// Queue is the informer's queue kind.
func (i *Informer) Queue() source.QueueKind { return i.queue }

// HasSynced says whether the informer has synced.
func (i *Informer) HasSynced() bool { return i.inf.HasSynced() }

// LastSyncResourceVersion is the resourceVersion the reflector stands at.
func (i *Informer) LastSyncResourceVersion() string { return i.inf.LastSyncResourceVersion() }

// Drained says the queue is empty and whatever was popped has been handed
// to the listeners (engine.Informer.Drained).
func (i *Informer) Drained() bool { return i.inf.Drained() }

// engine is the engine informer itself: it stays inside this package, and
// what other layers need of it is a method below (the layering test fails
// on an exported result that hands an engine value out).
func (i *Informer) engine() *engine.Informer { return i.inf }

// WaitSynced blocks until the informer has synced or ctx ends.
func (i *Informer) WaitSynced(ctx context.Context) error {
	return WaitDone(ctx, i.inf.HasSyncedChecker(), i.name)
}

// Objects is what the informer's cache holds now, in no order.
func (i *Informer) Objects() []any { return i.inf.GetStore().List() }

// Cached is the object the cache holds under key; ok is false when none.
func (i *Informer) Cached(key string) (obj any, ok bool) { return i.inf.StoreView().Get(key) }

// Cut is the informer's cache as one state, in the model (see CutInformer).
func (i *Informer) Cut() (verify.Cut, error) { return CutInformer(i.inf) }

// WrapListerWatcher wraps what the informer lists and watches through;
// only before it runs. A recording uses it to tee the stream.
func (i *Informer) WrapListerWatcher(wrap func(cache.ListerWatcher) cache.ListerWatcher) error {
	return i.inf.WrapListerWatcher(wrap)
}

// AddInformer adds an informer built with this source's event ring. Names
// must be unique; informers can only be added before Run.
func (s *Source) AddInformer(name, resource string, queue engine.QueueKind, inf *engine.Informer) (*Informer, error) {
	if s.started.Load() {
		return nil, errors.New("informers can only be added before the source runs")
	}
	if name == "" || inf == nil {
		return nil, errors.New("an informer needs a name and an engine informer")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Informer(name) != nil {
		return nil, fmt.Errorf("an informer named %q already exists", name)
	}
	e := &Informer{name: name, resource: resource, queue: queue, inf: inf}
	s.setList(append(s.list(), e))
	return e, nil
}

// list is the informers in order: a copy-on-write slice, never changed.
func (s *Source) list() []*Informer {
	if p := s.infs.Load(); p != nil {
		return *p
	}
	return nil
}

// setList publishes a new informer list; s.mu is held.
func (s *Source) setList(infs []*Informer) { s.infs.Store(&infs) }

// Informers returns the informers in order.
func (s *Source) Informers() []*Informer { return s.list() }

// Informer finds an informer by name; nil if there is none.
func (s *Source) Informer(name string) *Informer {
	for _, e := range s.list() {
		if e.name == name {
			return e
		}
	}
	return nil
}
