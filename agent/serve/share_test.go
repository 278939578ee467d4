package serve

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

// fakeClock is the sharer's clock and timers, moved by the test.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	timers []fakeTimer
	slept  []time.Duration
}

type fakeTimer struct {
	at time.Time
	f  func()
}

func useFakeClock(s *sharer) *fakeClock {
	c := &fakeClock{t: time.Unix(1_000_000, 0)}
	s.sleep = func(d time.Duration) {
		c.mu.Lock()
		c.slept = append(c.slept, d)
		c.mu.Unlock()
		c.advance(d)
	}
	s.now = func() time.Time {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.t
	}
	s.after = func(d time.Duration, f func()) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.timers = append(c.timers, fakeTimer{c.t.Add(d), f})
	}
	return c
}

// advance moves the clock and runs the timers due.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	var due []func()
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.t) {
			kept = append(kept, t)
		} else {
			due = append(due, t.f)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// countingRoute is a route of class c whose answer is a number counting
// its computations; key is by the query parameter "k".
func countingRoute(c *class, computed *atomic.Int64, before func()) route {
	return route{path: "/x", class: c, key: queryKey("k"), serve: func(w http.ResponseWriter, r *http.Request) {
		if before != nil {
			before()
		}
		writeJSON(w, map[string]any{"computation": computed.Add(1), "k": r.URL.Query().Get("k")})
	}}
}

func serveVia(s *sharer, rt route, target string, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	s.serve(rec, req, rt)
	return rec
}

// Concurrent identical requests are answered by one computation, the
// same bytes to each, whether they joined it while it ran or came after.
func TestConcurrentIdenticalRequestsShareOneComputation(t *testing.T) {
	const callers = 20
	s := newSharer()
	useFakeClock(s)
	var computed atomic.Int64
	// The computation goes on only once every caller has begun (and most
	// have found no shared answer): without the sharing each of those
	// would then compute its own. The test lets it go on.
	var begun atomic.Int64
	release := make(chan struct{})
	letGo := sync.OnceFunc(func() { close(release) })
	t.Cleanup(letGo) // a failed wait below still ends the callers
	rt := countingRoute(newClass("tests", time.Second), &computed, func() { <-release })
	key := rt.key
	rt.key = func(r *http.Request) string {
		defer begun.Add(1)
		return key(r)
	}
	bodies := make([][]byte, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { bodies[i] = serveVia(s, rt, "/x?k=a&junk="+fmt.Sprint(i), nil).Body.Bytes() })
	}
	waitfor.Seen(t, "every caller to begin", func() (bool, string) {
		n := begun.Load()
		return n == callers, fmt.Sprintf("%d of %d began", n, callers)
	})
	letGo()
	wg.Wait()
	if n := computed.Load(); n != 1 {
		t.Errorf("%d callers made %d computations, want 1", callers, n)
	}
	for i, b := range bodies {
		if !bytes.Equal(b, bodies[0]) || !bytes.Contains(b, []byte(`"computation":1`)) {
			t.Errorf("caller %d got %s, caller 0 %s", i, b, bodies[0])
		}
	}
}

// A shared answer is given for the class's interval after it was
// computed, never after, and dropped then: an agent nobody asks holds
// nothing.
func TestSharedAnswersLastTheirIntervalAndAreThenDropped(t *testing.T) {
	s := newSharer()
	clock := useFakeClock(s)
	var computed atomic.Int64
	rt := countingRoute(newClass("tests", time.Second), &computed, nil)
	get := func() string { return serveVia(s, rt, "/x?k=a", nil).Body.String() }

	first := get()
	clock.advance(999 * time.Millisecond)
	if again := get(); again != first {
		t.Errorf("within the interval: %s, want the shared %s", again, first)
	}
	clock.advance(time.Millisecond)
	s.mu.Lock()
	held := s.answers
	s.mu.Unlock()
	if held != nil {
		t.Errorf("after the interval the sharer still holds %d answers", len(held))
	}
	if later := get(); later == first || computed.Load() != 2 {
		t.Errorf("after the interval: %s (%d computations), want a new answer", later, computed.Load())
	}
	if other := serveVia(s, rt, "/x?k=b", nil).Body.String(); !strings.Contains(other, `"k":"b"`) {
		t.Errorf("another key got %s", other)
	}
}

// An answer is shared only while its route's state is unchanged; once
// it changed, the request is computed again, but not sooner than minGap
// after the last computation began, and the answer is tagged with the
// state as it is after that wait.
func TestOutOfDateAnswersAreComputedAtMostOncePerGap(t *testing.T) {
	s := newSharer()
	clock := useFakeClock(s)
	var computed atomic.Int64
	var state atomic.Value
	state.Store("A")
	rt := countingRoute(newClass("tests", time.Second), &computed, nil)
	rt.state = func(*http.Request) string { return state.Load().(string) }
	get := func() string { return serveVia(s, rt, "/x?k=a", nil).Body.String() }
	slept := func() []time.Duration {
		clock.mu.Lock()
		defer clock.mu.Unlock()
		return slices.Clone(clock.slept)
	}

	get()
	get()
	if computed.Load() != 1 {
		t.Fatalf("unchanged: %d computations, want 1", computed.Load())
	}
	state.Store("B")
	clock.advance(30 * time.Millisecond)
	sleep := s.sleep
	s.sleep = func(d time.Duration) {
		sleep(d)
		state.Store("C") // changed again while it waited
	}
	if body := get(); !strings.Contains(body, `"computation":2`) || !slices.Equal(slept(), []time.Duration{minGap - 30*time.Millisecond}) {
		t.Errorf("changed 30ms after: %s after sleeping %v; want computation 2 after %v", body, slept(), minGap-30*time.Millisecond)
	}
	if body := get(); !strings.Contains(body, `"computation":2`) {
		t.Errorf("in the state found after the wait: %s, want it shared", body)
	}
	state.Store("D")
	clock.advance(minGap)
	if body := get(); !strings.Contains(body, `"computation":3`) || len(slept()) != 1 {
		t.Errorf("changed %v after: %s, slept %v; want computation 3 at once", minGap, body, slept())
	}
}

// Only 200s are shared: an answer saying "not yet" is computed again.
func TestOnlySuccessfulAnswersAreShared(t *testing.T) {
	s := newSharer()
	useFakeClock(s)
	var computed atomic.Int64
	rt := route{path: "/x", class: newClass("tests", time.Second), key: queryKey(), serve: func(w http.ResponseWriter, _ *http.Request) {
		if computed.Add(1) == 1 {
			writeError(w, http.StatusConflict, "not yet")
			return
		}
		writeJSON(w, "ready")
	}}
	if rec := serveVia(s, rt, "/x", nil); rec.Code != http.StatusConflict {
		t.Fatalf("first: %d %s", rec.Code, rec.Body)
	}
	if rec := serveVia(s, rt, "/x", nil); rec.Code != http.StatusOK {
		t.Errorf("second, at the same instant: %d %s, want the new 200", rec.Code, rec.Body)
	}
}

// A request that waits its class's bound for a turn is answered 503 with
// Retry-After and a sentence; the turn is given back even by a panic.
func TestBusyClassAnswers503AndPanicsGiveTheTurnBack(t *testing.T) {
	s := newSharer()
	useFakeClock(s)
	s.wait = 0
	c := newClass("tests", time.Second)
	var computed atomic.Int64
	rt := countingRoute(c, &computed, nil)

	c.slots <- struct{}{} // another computation holds the turn
	rec := serveVia(s, rt, "/x?k=a", nil)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(errorSentence(t, rec.Body.Bytes()), "try again in a second") || computed.Load() != 0 {
		t.Errorf("busy: %d, Retry-After %q, %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	<-c.slots

	panicky := route{path: "/p", class: c, key: queryKey(), serve: func(http.ResponseWriter, *http.Request) { panic("a bug") }}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not reach the request's goroutine")
			}
		}()
		serveVia(s, panicky, "/p", nil)
	}()
	if rec := serveVia(s, rt, "/x?k=a", nil); rec.Code != http.StatusOK {
		t.Errorf("after a panic: %d %s, want the turn given back", rec.Code, rec.Body)
	}
}

func TestQueryKeyCountsOnlyTheNamedParameters(t *testing.T) {
	key := queryKey("informer", "value")
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"informer=pods", "informer=pods&junk=1", true},
		{"informer=pods&value=x", "value=x&informer=pods", true},
		{"informer=pods", "informer=pods&value=", false}, // absent is not empty
		{"informer=pods", "informer=nodes", false},
		{"informer=a%2C&value=b", "informer=a&value=%2Cb", false},
	} {
		ka := key(httptest.NewRequest(http.MethodGet, "/x?"+c.a, nil))
		kb := key(httptest.NewRequest(http.MethodGet, "/x?"+c.b, nil))
		if (ka == kb) != c.same {
			t.Errorf("%q and %q: keys %q and %q, same = %v, want %v", c.a, c.b, ka, kb, ka == kb, c.same)
		}
	}
}

// Through the handler: a cache's answer (a cut, entries) is shared while
// the informer has received nothing new, for a second at most, and never
// once it has: a verify after a change reads the cache after it. /metrics
// is shared for a second only with scrapes asking for the same format
// and compression; a caller without the token gets no shared answer.
func TestHandlerSharesCacheAnswersOnlyWhileCurrentAndScrapesForASecond(t *testing.T) {
	src := newCuttable(podsStore(1, "a", "b", "c"))
	h, err := newHandler(src, Options{Token: "t"}, Extras{})
	if err != nil {
		t.Fatal(err)
	}
	clock := useFakeClock(h.share)
	computed := map[string]*atomic.Int64{}
	for i, rt := range h.routes {
		n := new(atomic.Int64)
		computed[rt.path] = n
		h.routes[i].serve = func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			rt.serve(w, r)
		}
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cutPath, entriesPath := api.PathCut+"?informer=pods&keys=true", api.PathEntries+"?informer=pods"
	want := func(when string, cuts, entries int64) {
		t.Helper()
		if c, e := computed[api.PathCut].Load(), computed[api.PathEntries].Load(); c != cuts || e != entries {
			t.Errorf("%s: %d cuts and %d entries computed, want %d and %d", when, c, e, cuts, entries)
		}
	}

	var first, third api.Cut
	firstBody, _ := getAuthorized(t, srv, cutPath, nil, &first)
	getAuthorized(t, srv, entriesPath, nil, nil)
	secondBody, _ := getAuthorized(t, srv, cutPath, nil, nil)
	getAuthorized(t, srv, entriesPath, nil, nil)
	want("nothing changed", 1, 1)
	if !bytes.Equal(secondBody, firstBody) {
		t.Errorf("the shared cut differs: %s, then %s", firstBody, secondBody)
	}

	src.SetStore("pods", podsStore(2, "a", "b", "c", "d")) // pod d came: a new generation
	getAuthorized(t, srv, cutPath, nil, &third)
	var entries api.StoreEntries
	getAuthorized(t, srv, entriesPath, nil, &entries)
	want("after pod d came, within the second", 2, 2)
	if third.Objects != 4 || third.ResourceVersion == first.ResourceVersion || len(entries.Entries) != 4 {
		t.Errorf("after pod d came: a cut of %d objects at %s (first at %s), %d entries; want pod d in both", third.Objects, third.ResourceVersion, first.ResourceVersion, len(entries.Entries))
	}

	clock.advance(shareCache)
	getAuthorized(t, srv, cutPath, nil, nil)
	want("a second later, nothing changed", 3, 2)

	// The format and compression asked for are part of what is shared.
	plain, _ := getAuthorized(t, srv, api.PathMetrics, nil, nil)
	gz, enc := getAuthorized(t, srv, api.PathMetrics, http.Header{"Accept-Encoding": {"gzip"}}, nil)
	if _, err := gzip.NewReader(bytes.NewReader(gz)); err != nil || enc != "gzip" {
		t.Errorf("a gzip scrape after a plain one: Content-Encoding %q, %v", enc, err)
	}
	if again, enc := getAuthorized(t, srv, api.PathMetrics, nil, nil); !bytes.Equal(again, plain) || enc != "" {
		t.Errorf("a plain scrape in the same second got other bytes than the first (Content-Encoding %q)", enc)
	}
	if again, _ := getAuthorized(t, srv, api.PathMetrics, http.Header{"Accept-Encoding": {"gzip"}}, nil); !bytes.Equal(again, gz) {
		t.Errorf("a gzip scrape in the same second got other bytes than the first")
	}

	resp, err := srv.Client().Get(srv.URL + cutPath)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusUnauthorized || errorSentence(t, body) != SentenceUnauthorized {
		t.Errorf("without the token, while a cut is shared: %d %s", resp.StatusCode, body)
	}
}

// getAuthorized GETs path with the token "t" and header, wants 200,
// decodes JSON into v when not nil and returns the raw body and its
// Content-Encoding.
func getAuthorized(t *testing.T, srv *httptest.Server, path string, header http.Header, v any) ([]byte, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Authorization", "Bearer t")
	// The transport would ask for gzip and decode it unseen.
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v in %s", path, err, body)
		}
	}
	return body, resp.Header.Get("Content-Encoding")
}
