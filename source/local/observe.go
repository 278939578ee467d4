package local

import "time"

// CallObserver is told a listener's callback once it has run, and how long
// it took (stalls included). It is called on the listener's goroutine and
// must not block.
type CallObserver func(c Call, took time.Duration)

// ObserveCalls tells fn every callback of every simulated listener, those
// added later included: a recorder keeps the handlers' timing with it.
func (s *Source) ObserveCalls(fn func(informer, listener string, c Call, took time.Duration)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = fn
	for _, e := range s.list() {
		for _, le := range e.listeners {
			s.observeLocked(e, le.l)
		}
	}
}

func (s *Source) observeLocked(e *Informer, l *Listener) {
	if s.calls == nil {
		return
	}
	fn, informer, name := s.calls, e.name, l.name
	o := CallObserver(func(c Call, took time.Duration) { fn(informer, name, c, took) })
	l.observe.Store(&o)
}
