package serve

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Answers whose cost grows with the cache or the registry (a cut holds
// the informer's pipeline while it copies every key) are bounded: each
// class computes one answer at a time, a request waits for its turn at
// most slotWait and is then answered 503, and identical requests share
// one answer while it is computed and for the class's interval after,
// unless the route's state says that what the answer reads has changed
// since: a cache's answer is never given once the informer has received
// something newer, so a verify after a change cannot read the cache from
// before it. Nothing here runs, and nothing is held, while nobody asks: a
// shared answer is dropped by a timer when its interval ends.

const (
	// slotWait bounds a request's wait for its class's turn: under
	// attach's 5 s request timeout and Prometheus's 10 s default scrape
	// timeout, so callers read the 503's sentence rather than time out.
	slotWait = 2 * time.Second
	// maxShared bounds the answers held at once: a caller varying what
	// it asks (keys, Accept headers) cannot make the agent hold more than
	// this many, each for at most its class's interval.
	maxShared = 16
	// minGap spaces the computations of one request whose shared answer
	// went out of date (a cache that keeps changing): a cut holds the
	// pipeline while it copies, so scrapers of a busy informer make at
	// most one copy a second rather than one after another. A verify
	// waits at most this much longer.
	minGap = time.Second
)

// class is a kind of expensive answer.
type class struct {
	what  string        // for the 503's sentence: "answers from the caches"
	slots chan struct{} // one slot: one computation at a time
	// share is how long an answer computed for a request is given to
	// identical requests after it was computed, the staleness bound the
	// endpoints' docs state.
	share time.Duration
}

func newClass(what string, share time.Duration) *class {
	return &class{what: what, slots: make(chan struct{}, 1), share: share}
}

// answer is a computed response, written as is to every request sharing it.
type answer struct {
	status int
	header http.Header
	body   []byte
	began  time.Time // when its computation began
	until  time.Time // shared until then
	state  string    // the route's state read before computing
}

func (a *answer) write(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range a.header {
		h[k] = slices.Clip(v) // an append by a wrapper copies instead of writing into the shared slice
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// sharer holds the answers being computed and those still shared.
// Locking: mu guards answers.
type sharer struct {
	flight  singleflight.Group
	now     func() time.Time
	after   func(time.Duration, func()) // time.AfterFunc; tests run the timers themselves
	sleep   func(time.Duration)
	wait    time.Duration
	mu      sync.Mutex
	answers map[string]*answer // nil while none is shared
}

func newSharer() *sharer {
	return &sharer{
		now:   time.Now,
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) },
		sleep: time.Sleep,
		wait:  slotWait,
	}
}

// serve answers r through rt's class: a shared answer when one for the
// same key is being computed or still fresh, else one computed in the
// class's turn. The answer is written after the turn is given back, so a
// slow reader holds no turn.
func (s *sharer) serve(w http.ResponseWriter, r *http.Request, rt route) {
	key := rt.path + "\x00" + rt.key(r)
	var state string
	if rt.state != nil {
		state = rt.state(r)
	}
	if a := s.shared(key, state); a != nil {
		a.write(w)
		return
	}
	// Do, not DoChan: a panic in serve stays in this request's goroutine,
	// where net/http recovers it, instead of ending the controller.
	v, _, _ := s.flight.Do(key, func() (any, error) {
		if a := s.shared(key, state); a != nil { // computed between the look above and Do
			return a, nil
		}
		return s.compute(key, state, r, rt), nil
	})
	v.(*answer).write(w)
}

// shared returns the answer for key computed in state and still within
// its interval, or nil.
func (s *sharer) shared(key, state string) *answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.answers[key]; a != nil && a.state == state && s.now().Before(a.until) {
		return a
	}
	return nil
}

// compute waits for minGap after the last computation of key and for
// the class's turn, then computes the answer, keeping a 200 for the
// class's interval; other answers (an informer not synced yet, 503) are
// given only to the requests that waited for them.
func (s *sharer) compute(key, state string, r *http.Request, rt route) *answer {
	s.mu.Lock()
	last := s.answers[key]
	s.mu.Unlock()
	if last != nil {
		if d := last.began.Add(minGap).Sub(s.now()); d > 0 {
			s.sleep(d) // requests arriving meanwhile join this computation
		}
	}
	if !s.acquire(rt.class) {
		return busy(rt.class, s.wait)
	}
	if rt.state != nil {
		state = rt.state(r) // as it is now, after the waits
	}
	began := s.now()
	rec := record(rt, r)
	a := &answer{status: rec.status, header: rec.header, body: rec.body, began: began}
	if a.status == 0 {
		a.status = http.StatusOK
	}
	if a.status != http.StatusOK || rt.class.share <= 0 {
		return a
	}
	a.until, a.state = s.now().Add(rt.class.share), state
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answers == nil {
		s.answers = make(map[string]*answer)
	}
	if len(s.answers) >= maxShared {
		return a
	}
	s.answers[key] = a
	s.after(rt.class.share, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.answers[key] == a {
			delete(s.answers, key)
		}
		if len(s.answers) == 0 {
			s.answers = nil // an idle agent holds no map either
		}
	})
	return a
}

// record computes rt's answer to r in the class's slot, which it gives
// back even when serve panics.
func record(rt route, r *http.Request) *recorder {
	defer func() { <-rt.class.slots }()
	rec := &recorder{header: http.Header{}}
	rt.serve(rec, r)
	return rec
}

// acquire takes the class's slot, waiting at most s.wait.
func (s *sharer) acquire(c *class) bool {
	select {
	case c.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case c.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// busy is the 503 of a request that waited its class's bound.
func busy(c *class, waited time.Duration) *answer {
	rec := &recorder{header: http.Header{}}
	rec.header.Set("Retry-After", "1")
	writeError(rec, http.StatusServiceUnavailable, fmt.Sprintf(
		"the informtop agent is busy: it computes %s one at a time, to spare the controller, and this request waited %s for its turn; try again in a second",
		c.what, waited))
	return &answer{status: rec.status, header: rec.header, body: rec.body}
}

// recorder is the response a shared answer is computed into; writeJSON
// hands it its body instead of writing a copy.
type recorder struct {
	header http.Header
	status int
	body   []byte
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	if len(r.body)+len(p) > cap(r.body) {
		r.body = slices.Grow(r.body, max(len(p), cap(r.body))) // doubling: promhttp writes in many pieces
	}
	r.body = append(r.body, p...)
	return len(p), nil
}

// queryKey keys a request by the query parameters its answer depends on
// (their first values, as url.Values.Get reads them), so that junk
// parameters neither defeat the sharing nor share wrong answers.
func queryKey(names ...string) func(*http.Request) string {
	return func(r *http.Request) string {
		q := r.URL.Query()
		var b []byte
		for _, n := range names {
			if vs, ok := q[n]; ok {
				b = strconv.AppendQuote(b, vs[0])
			}
			b = append(b, ',')
		}
		return string(b)
	}
}

// metricsKey keys a scrape by what promhttp reads: the query (name[]
// filters) and the Accept and Accept-Encoding headers, which choose the
// format and compression.
func metricsKey(r *http.Request) string {
	b := strconv.AppendQuote(nil, r.URL.RawQuery)
	for _, h := range []string{"Accept", "Accept-Encoding"} {
		for _, v := range r.Header.Values(h) {
			b = strconv.AppendQuote(b, v)
		}
		b = append(b, ',')
	}
	return string(b)
}
