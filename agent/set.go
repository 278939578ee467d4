package agent

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/redact"
)

// Set is a growing collection of informers for the agent to serve, for
// informers created after the handler: controller-runtime's cache, for
// one, builds an informer the first time a type is asked for, long after
// the manager and its metrics server (and so the handler) exist. Give it
// in Options.Informers; NewInformer adds the informers it builds, Add
// adds engine informers built otherwise. A handler serves the informers
// passed to NewHandler and those in the set, read at every request and
// scrape. The zero Set is empty and ready to use.
//
// While informers NewInformer built run, the set watches their handlers
// once a second: a call that runs longer than source.StallAfter is
// reported (a Stalled event) with the code it is stuck in, whether or not
// a client is attached. The watch allocates nothing unless it finds one.
//
// Invariant: every name appears once among the informers added and the
// informers passed to the handlers built with the set (those names are
// reserved when the handler is built), so no client sees two informers
// of one name; an informer once added stays.
//
// Locking: mu serialises Add, the reservations and the running set.
// Readers never take it: they load the published list, which is never
// changed once published (Add publishes a longer copy), so a request
// costs one atomic load and the informers themselves are never touched by
// Add.
type Set struct {
	mu    sync.Mutex
	names map[string]bool // true: added; false: reserved by a handler
	list  atomic.Pointer[[]*watched]
	// identity names NewInformer's client-go informers for client-go's
	// queue metric; created on first use.
	identity *cache.InformerName
	// active counts the Run calls in progress per informer (client-go
	// returns at once from a second one); the watchdog runs while it is
	// not empty and stops when stop is closed.
	active map[*watched]int
	stop   chan struct{}
}

// NewSet returns an empty Set.
func NewSet() *Set { return &Set{} }

// Add makes inf served by every handler built with the set, from their
// next request on. It refuses a nil informer and a name already added or
// given to such a handler: clients tell informers apart by name.
func (s *Set) Add(inf *engine.Informer) error {
	if inf == nil {
		return errors.New("agent: cannot add a nil informer to the set")
	}
	inf.DescribeMutationsWith(redact.FieldChanges)
	return s.add(engineMember(inf))
}

// engineMember serves an engine informer built by its owner: it reports
// itself, and its handlers are not probed.
func engineMember(inf *engine.Informer) *watched {
	return &watched{SharedIndexInformer: inf, name: inf.Name(), resource: inf.Resource(), gvr: inf.Identifier().GroupVersionResource(), ring: inf.Events(), eng: inf}
}

func (s *Set) add(w *watched) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if added, taken := s.names[w.name]; taken {
		if added {
			return fmt.Errorf("agent: the set already holds an informer named %q; give each a distinct name so clients can tell them apart", w.name)
		}
		return fmt.Errorf("agent: an informer named %q was given to a handler built with this set; give each a distinct name so clients can tell them apart", w.name)
	}
	s.publish(w)
	return nil
}

// addFree adds w under its name or, when that is taken, the first of
// "name #2", "name #3", … that is free.
func (s *Set) addFree(w *watched) {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := w.name
	for n := 2; s.reservedLocked(w.name); n++ {
		w.name = base + " #" + strconv.Itoa(n)
	}
	s.publish(w)
}

func (s *Set) reservedLocked(name string) bool {
	_, taken := s.names[name]
	return taken
}

// publish adds w to the list readers load. Called with mu held.
func (s *Set) publish(w *watched) {
	if s.names == nil {
		s.names = make(map[string]bool)
	}
	s.names[w.name] = true
	w.set = s
	var next []*watched
	if cur := s.list.Load(); cur != nil {
		next = slices.Clip(*cur) // append below copies: readers keep their list
	}
	next = append(next, w)
	s.list.Store(&next)
}

// informers returns the informers added so far, in the order added. The
// slice is shared: callers must not change it.
func (s *Set) informers() []*watched {
	if s == nil {
		return nil
	}
	if p := s.list.Load(); p != nil {
		return *p
	}
	return nil
}

// reserve claims the names of a handler's own informers, or says which
// one the set already holds. Names stay reserved: handlers are not
// closed, and a name served twice would confuse every client.
func (s *Set) reserve(informers []*watched) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, inf := range informers {
		if s.names[inf.name] {
			return fmt.Errorf("agent: an informer named %q is both given to NewHandler and in Options.Informers; serve each informer once, under a distinct engine.Options.Name", inf.name)
		}
	}
	if s.names == nil {
		s.names = make(map[string]bool, len(informers))
	}
	for _, inf := range informers {
		s.names[inf.name] = false
	}
	return nil
}

// informerName is the client-go identity of the set's informers.
func (s *Set) informerName() *cache.InformerName {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.identity == nil {
		// Names are unique in a process; a second set takes the next.
		for n := 1; s.identity == nil; n++ {
			name := "informtop-agent"
			if n > 1 {
				name += "-" + strconv.Itoa(n)
			}
			s.identity, _ = cache.NewInformerName(name)
		}
	}
	return s.identity
}

// running notes that w started or stopped running, and starts the
// watchdog with the first informer running or stops it with the last.
func (s *Set) running(w *watched, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		if s.active == nil {
			s.active = make(map[*watched]int)
		}
		s.active[w]++
		if s.stop == nil {
			s.stop = make(chan struct{})
			go s.watch(s.stop)
		}
		return
	}
	if s.active[w]--; s.active[w] <= 0 {
		delete(s.active, w)
	}
	if len(s.active) == 0 && s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
}

// runs says whether w is running.
func (s *Set) runs(w *watched) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[w] > 0
}

// watch looks at the running informers' handlers once a second until
// stop is closed.
func (s *Set) watch(stop <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			s.inspect(now)
		}
	}
}
