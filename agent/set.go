package agent

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Set holds the informers an agent serves. NewInformer and InformerFor
// add the informers they build to it, before or after the handler
// exists (controller-runtime's cache builds an informer the first time a
// type is asked for, long after the manager and its metrics server), and
// a handler serves the set as it is at each request and scrape. The zero
// Set is empty and ready to use.
//
// While its informers run, the set looks at their handlers once a second:
// a call that runs longer than 2 s is reported (a Stalled event) with the
// code it is stuck in, whether or not a client is attached. The look
// allocates nothing unless it finds one.
//
// Invariant: every name appears once in the set, so no client sees two
// informers of one name; an informer once added stays.
//
// Locking: mu serialises additions and the running set. Readers never
// take it: they load the published list, which is never changed once
// published (an addition publishes a longer copy), so a request costs one
// atomic load.
type Set struct {
	mu    sync.Mutex
	names map[string]bool
	list  atomic.Pointer[[]*watched]
	// active counts the Run calls in progress per informer (client-go
	// returns at once from a second one); the watchdog runs while it is
	// not empty and stops when stop is closed.
	active map[*watched]int
	stop   chan struct{}
}

// NewSet returns an empty Set.
func NewSet() *Set { return &Set{} }

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
