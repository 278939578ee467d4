package agent

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/redact"
)

// Set is a growing collection of informers for the agent to serve, for
// informers created after the handler: controller-runtime's cache, for
// one, builds an informer the first time a type is asked for, long after
// the manager and its metrics server (and so the handler) exist. Give it
// in Options.Informers and Add informers as they are built; a handler
// serves the informers passed to NewHandler and those in the set, read
// at every request and scrape. The zero Set is empty and ready to use.
//
// Invariant: every name appears once among the informers added and the
// informers passed to the handlers built with the set (those names are
// reserved when the handler is built), so no client sees two informers
// of one name; an informer once added stays.
//
// Locking: mu serialises Add and the reservations. Readers never take
// it: they load the published list, which is never changed once
// published (Add publishes a longer copy), so a request costs one atomic
// load and the informers themselves are never touched by Add.
type Set struct {
	mu    sync.Mutex
	names map[string]bool // true: added; false: reserved by a handler
	list  atomic.Pointer[[]*engine.Informer]
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
	s.mu.Lock()
	defer s.mu.Unlock()
	name := inf.Name()
	if added, taken := s.names[name]; taken {
		if added {
			return fmt.Errorf("agent: the set already holds an informer named %q; give each a distinct engine.Options.Name so clients can tell them apart", name)
		}
		return fmt.Errorf("agent: an informer named %q was given to a handler built with this set; give each a distinct engine.Options.Name so clients can tell them apart", name)
	}
	if s.names == nil {
		s.names = make(map[string]bool)
	}
	s.names[name] = true
	inf.DescribeMutationsWith(redact.FieldChanges)
	var next []*engine.Informer
	if cur := s.list.Load(); cur != nil {
		next = slices.Clip(*cur) // append below copies: readers keep their list
	}
	next = append(next, inf)
	s.list.Store(&next)
	return nil
}

// informers returns the informers added so far, in the order added. The
// slice is shared: callers must not change it.
func (s *Set) informers() []*engine.Informer {
	if p := s.list.Load(); p != nil {
		return *p
	}
	return nil
}

// reserve claims the names of a handler's own informers, or says which
// one the set already holds. Names stay reserved: handlers are not
// closed, and a name served twice would confuse every client.
func (s *Set) reserve(informers []*engine.Informer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, inf := range informers {
		if s.names[inf.Name()] {
			return fmt.Errorf("agent: an informer named %q is both given to NewHandler and in Options.Informers; serve each informer once, under a distinct engine.Options.Name", inf.Name())
		}
	}
	if s.names == nil {
		s.names = make(map[string]bool, len(informers))
	}
	for _, inf := range informers {
		s.names[inf.Name()] = false
	}
	return nil
}
