package attach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	agentserve "github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/local"
)

func TestNewValidatesTheAddress(t *testing.T) {
	for addr, base := range map[string]string{
		"127.0.0.1:6060":                  "http://127.0.0.1:6060",
		" localhost:80 ":                  "http://localhost:80",
		":6060":                           "http://127.0.0.1:6060",
		"[::1]:6060":                      "http://[::1]:6060",
		"http://10.0.0.1:6060":            "http://10.0.0.1:6060",
		"https://ctrl.example.com/":       "https://ctrl.example.com",
		"https://ctrl.example.com/dbg/":   "https://ctrl.example.com/dbg",
		"127.0.0.1:8080/debug/informtop/": "http://127.0.0.1:8080/debug/informtop",
		":8080/debug/informtop":           "http://127.0.0.1:8080/debug/informtop",
	} {
		s, err := New(addr, Options{})
		if err != nil {
			t.Errorf("%q: %v", addr, err)
			continue
		}
		if s.base != base || s.Kind() != "attach" || s.Title() != strings.TrimSpace(addr) {
			t.Errorf("%q: base %q, kind %q, title %q", addr, s.base, s.Kind(), s.Title())
		}
		if st := s.Status(); st.State != source.Connecting || st.Message != "connecting to "+strings.TrimSpace(addr) {
			t.Errorf("%q: status before Run %+v", addr, st)
		}
	}
	for addr, want := range map[string]string{
		"":                         "no agent address",
		"localhost":                "is not an agent address",
		"localhost:http":           "no valid port",
		"localhost:70000":          "no valid port",
		"ftp://localhost:21":       "not ftp",
		"http://":                  "names no host",
		"http://h:1/?x=1":          "without user, query or fragment",
		"http://user:pw@h:1/":      "without user, query or fragment",
		"http://h:0/":              "no valid port",
		"http://bad host:1/":       "is not an agent address",
		"host:port:and:more":       "is not an agent address",
		"localhost:http/debug":     "no valid port",
		"localhost:1/dbg?x=1":      "without user, query or fragment",
		"https://ctrl.example.com": "",
	} {
		_, err := New(addr, Options{})
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", addr, err)
		case want != "" && err == nil:
			t.Errorf("%q: accepted", addr)
		case want != "":
			contains(t, fmt.Sprintf("%q:", addr), err.Error(), want, "host:port")
		}
	}
}

func TestBackoffDoublesFrom1sTo30s(t *testing.T) {
	var got []time.Duration
	for n := 1; n <= 8; n++ {
		got = append(got, source.Backoff(n, minBackoff, maxBackoff))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30, 30}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("backoff %v, want %v seconds", got, want)
		}
	}
}

// TestFramesFromARealAgent: snapshots, reasons, name and events arrive
// from agent.NewHandler over a running informer; events read in small
// pulls are exactly the agent's ring, in order, none twice, none missed.
func TestFramesFromARealAgent(t *testing.T) {
	fx := newAgent(t, 20, 1<<14, agentserve.Options{Name: "ctrl"}, true)
	srv := serve(t, fx.handler)
	s := newSource(t, srv.addr, Options{})
	if f := s.Pull(0, 0); len(f.Snapshots) != 0 || f.Status.State != source.Connecting || say.Status(f.Status, time.Now()) != "connecting to "+srv.addr {
		t.Fatalf("before Run: %+v", f)
	}
	run(t, s)
	waitSynced(t, s)
	if s.Title() != srv.addr+" · ctrl" {
		t.Errorf("title %q", s.Title())
	}
	for i := range 30 {
		fx.ring.Emit(instr.Event{Type: pipeline.EventControl, Detail: fmt.Sprint("mark ", i)})
	}
	want := func() []string { // the agent's ring, as the UI should see it
		evs, _, _ := fx.ring.Since(0, 0)
		out := make([]string, len(evs))
		for i, e := range evs {
			out[i] = fmt.Sprint(e.Type, " ", e.ObjectKey(), " ", e.Detail)
		}
		return out
	}
	var got []string
	var cursor, lastSeq, missed uint64
	waitfor.Until(t, "every event of the agent's ring", func() bool {
		f := s.Pull(cursor, 7)
		for _, e := range f.Events {
			if e.Seq <= lastSeq {
				t.Fatalf("event %d after %d: repeated or out of order", e.Seq, lastSeq)
			}
			if lastSeq != 0 && e.Seq != lastSeq+1 {
				t.Fatalf("event %d after %d with nothing overwritten", e.Seq, lastSeq)
			}
			lastSeq = e.Seq
			got = append(got, fmt.Sprint(e.Type, " ", e.Key, " ", e.Detail))
		}
		if len(f.Events) > 0 && f.Next != lastSeq+1 {
			t.Fatalf("next %d after event %d", f.Next, lastSeq)
		}
		cursor, missed = f.Next, missed+f.Missed
		return len(got) >= len(want()) && strings.HasPrefix(got[len(got)-1], "Control  mark 29")
	}, func() string { return fmt.Sprintf("got %d events, want %d", len(got), len(want())) })
	if w := want(); strings.Join(got, "\n") != strings.Join(w, "\n") || missed != 0 {
		t.Errorf("events differ from the agent's ring (missed %d):\ngot  %q\nwant %q", missed, got, w)
	}

	f := s.Pull(cursor, 0)
	if len(f.Events) != 0 || f.Next != cursor || f.Missed != 0 {
		t.Errorf("a pull at the end: %d events, next %d (cursor %d), missed %d", len(f.Events), f.Next, cursor, f.Missed)
	}
	if len(f.Snapshots) != 1 || f.Snapshots[0].Name != "pods" || !f.Snapshots[0].Synced || f.Snapshots[0].Store.Objects != 20 {
		t.Errorf("snapshots %+v", f.Snapshots)
	}
	if f.Status.State != source.Live || say.Status(f.Status, time.Now()) != "" || len(f.Reasons) != 0 {
		t.Errorf("status %+v, reasons %v", f.Status, f.Reasons)
	}
	if len(f.Notes) != 1 || !strings.Contains(f.Notes[0], "ctrl at "+srv.addr) || f.Taken.IsZero() || f.EventStats.Emitted < 30 {
		t.Errorf("notes %q, taken %v, stats %+v", f.Notes, f.Taken, f.EventStats)
	}
	f.Snapshots[0].Name = "scribbled" // a reader's copy is its own
	if g := s.Pull(cursor, 0); g.Snapshots[0].Name != "pods" {
		t.Errorf("a pull shares snapshots with the last reader: %q", g.Snapshots[0].Name)
	}
	var _ source.Source = s
	if s.Controls() != (source.Controls{Cuts: s}) {
		t.Errorf("attach offers controls %+v; an attached process can only be shown, and its caches cut", s.Controls())
	}
}

// TestMissedAddsUp: events the agent's ring overwrote before the poller
// asked reach the reader as Missed; read and missed add up to every
// event emitted, and the numbers stay continuous across the gap.
func TestMissedAddsUp(t *testing.T) {
	fx := newAgent(t, 0, 16, agentserve.Options{Name: "ctrl"}, false)
	srv := serve(t, fx.handler)
	s := newSource(t, srv.addr, Options{})
	ctx := context.Background()
	emit := func(n int) {
		for range n {
			fx.ring.Emit(instr.Event{Type: pipeline.EventWatchEvent, Detail: "x"}) // per-item: overwritten, unlike lifecycle events
		}
	}
	emit(10)
	s.poll(ctx)
	f := s.Pull(0, 0)
	if len(f.Events) != 10 || f.Missed != 0 || f.Next != 11 {
		t.Fatalf("first pull: %d events, missed %d, next %d", len(f.Events), f.Missed, f.Next)
	}
	read, missed := uint64(len(f.Events)), f.Missed
	emit(40) // the ring holds 16: events 11..34 are gone before the poller asks
	s.poll(ctx)
	g := s.Pull(f.Next, 5)
	if g.Missed != 24 || len(g.Events) != 5 || g.Events[0].Seq != 35 {
		t.Fatalf("after the overwrite: missed %d (want 24), %d events from %d", g.Missed, len(g.Events), g.Events[0].Seq)
	}
	read, missed = read+uint64(len(g.Events)), missed+g.Missed
	h := s.Pull(g.Next, 0)
	read, missed = read+uint64(len(h.Events)), missed+h.Missed
	if h.Missed != 0 || h.Events[0].Seq != g.Next {
		t.Errorf("continuing: missed %d, first %d after next %d", h.Missed, h.Events[0].Seq, g.Next)
	}
	if emitted := fx.ring.Stats().Emitted; read+missed != emitted {
		t.Errorf("read %d + missed %d != emitted %d", read, missed, emitted)
	}
	if m := s.Pull(0, 0).Missed; m != 24 {
		t.Errorf("a new reader reads from the oldest held, across the agent's gap: missed %d, want 24", m)
	}
}

// TestEventBufferOverwrite: a reader slower than the local buffer is told
// what it lost there, and gaps from the agent count as well.
func TestEventBufferOverwrite(t *testing.T) {
	b := newEventBuffer(8)
	if evs, next, missed := b.since(0, 0); len(evs) != 0 || next != 1 || missed != 0 {
		t.Fatalf("empty: %d events, next %d, missed %d", len(evs), next, missed)
	}
	batch := func(n int) []source.Event { return make([]source.Event, n) }
	b.add(batch(5), 0) // 1..5
	_, cur, _ := b.since(0, 0)
	b.add(batch(3), 2) // 8..10 after the agent lost two
	b.add(batch(6), 0) // 11..16; the buffer now holds 9..16
	evs, next, missed := b.since(cur, 0)
	if len(evs) != 8 || evs[0].Seq != 9 || next != 17 || missed != 3 {
		t.Fatalf("%d events from %d, next %d, missed %d; want 8 from 9, 17, 3", len(evs), evs[0].Seq, next, missed)
	}
	evs, next, missed = b.since(6, 2) // 6 and 7 were the agent's loss, 8 was overwritten
	if len(evs) != 2 || evs[0].Seq != 9 || next != 11 || missed != 3 {
		t.Fatalf("bounded: %d events from %d, next %d, missed %d", len(evs), evs[0].Seq, next, missed)
	}
	if evs, next, missed = b.since(99, 0); len(evs) != 0 || next != 17 || missed != 0 {
		t.Fatalf("ahead: %d events, next %d, missed %d", len(evs), next, missed)
	}
}

// TestDisconnectAndReconnect: a stopped agent leaves the last frame in
// place with a Disconnected status and a retry time; the same agent back
// makes the source live again by itself with the events continuing, and a
// new agent process on the address continues the numbering.
func TestDisconnectAndReconnect(t *testing.T) {
	fx := newAgent(t, 5, 1<<12, agentserve.Options{Name: "ctrl"}, true)
	srv := serve(t, fx.handler)
	s := newSource(t, srv.addr, Options{})
	run(t, s)
	waitSynced(t, s)
	fx.ring.Emit(instr.Event{Type: pipeline.EventControl, Detail: "before"})
	var cursor, lastSeq uint64
	var details []string
	drain := func() {
		f := s.Pull(cursor, 0)
		for _, e := range f.Events {
			if e.Seq <= lastSeq {
				t.Fatalf("event %d after %d", e.Seq, lastSeq)
			}
			lastSeq = e.Seq
			details = append(details, e.Detail)
		}
		cursor = f.Next
	}
	has := func(d string) func() bool {
		return func() bool { drain(); return strings.Contains(strings.Join(details, "|"), d) }
	}
	seen := func() string { return fmt.Sprintf("status %+v, events %q", s.Status(), details) }
	waitfor.Until(t, "the first mark", has("before"), seen)

	stopped := time.Now()
	srv.stop()
	waitfor.Until(t, "disconnected", func() bool { return s.Status().State == source.Disconnected }, seen)
	f := s.Pull(cursor, 0)
	st := f.Status
	if st.LastError == "" || st.Message != "" || !st.NextRetry.After(stopped) {
		t.Errorf("disconnected status %+v", st)
	}
	contains(t, "header", say.Status(st, st.NextRetry.Add(-4*time.Second)), "disconnected, retrying in 4s: ")
	if len(f.Snapshots) != 1 || !f.Snapshots[0].Synced {
		t.Errorf("the last snapshots are gone: %+v", f.Snapshots)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	if err := s.WaitSynced(ctx); err != nil {
		t.Errorf("the last frame was synced: %v", err)
	}
	cancel()

	fx.ring.Emit(instr.Event{Type: pipeline.EventControl, Detail: "while down"})
	srv.restart(fx.handler)
	waitfor.Until(t, "live again", func() bool { return s.Status().State == source.Live }, seen)
	fx.ring.Emit(instr.Event{Type: pipeline.EventControl, Detail: "after"})
	waitfor.Until(t, "the events after", has("after"), seen)
	contains(t, "events", strings.Join(details, "|"), "before|while down|after")

	// Another process on the same address: its ring starts at 1 again.
	fx2 := newAgent(t, 3, 1<<12, agentserve.Options{Name: "ctrl-2"}, true)
	fx2.ring.Emit(instr.Event{Type: pipeline.EventControl, Detail: "new process"})
	srv.restart(fx2.handler)
	waitfor.Until(t, "the new process's events", has("new process"), seen)
	waitfor.Until(t, "the new name", func() bool { return s.Title() == srv.addr+" · ctrl-2" }, seen)
}

// fakeAgent answers every request with status and the version header
// given ("" leaves it out) and records the Authorization headers.
type fakeAgent struct {
	mu      sync.Mutex
	version string
	status  int
	body    any
	auth    []string
}

func (a *fakeAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.auth = append(a.auth, r.Header.Get("Authorization"))
	if a.version != "" {
		w.Header().Set(api.VersionHeader, a.version)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_ = json.NewEncoder(w).Encode(a.body)
}

func TestIncompatibleVersion(t *testing.T) {
	fa := &fakeAgent{version: "9", status: http.StatusOK, body: api.Frame{Version: "9"}}
	srv := serve(t, fa)
	s := newSource(t, srv.addr, Options{})
	run(t, s)
	waitfor.Until(t, "incompatible", func() bool { return s.Status().State == source.Incompatible }, func() string { return fmt.Sprint(s.Status()) })
	st := s.Pull(0, 0).Status
	want := "the agent at " + srv.addr + " speaks protocol version 9; this informtop speaks " + api.Version + ": upgrade the older side"
	if st.Message != want || say.Status(st, time.Now()) != want {
		t.Errorf("status %+v\nwant message %q", st, want)
	}

	fa.mu.Lock()
	fa.version = "" // not an agent at all
	fa.mu.Unlock()
	waitfor.Until(t, "no header", func() bool { return strings.Contains(s.Status().Message, api.VersionHeader) },
		func() string { return fmt.Sprint(s.Status()) })
	st = s.Status()
	if st.State != source.Incompatible {
		t.Errorf("without a header: %+v", st)
	}
	contains(t, "message", st.Message, srv.addr, "speaks agent protocol version "+api.Version, "informtop agent")
}

// TestToken: the token goes out as a bearer token on frames and store
// reads; 401 without a token or with a wrong one is a sentence naming
// --token.
func TestToken(t *testing.T) {
	fx := newAgent(t, 3, 1<<10, agentserve.Options{Name: "ctrl", Token: "s3cret"}, true)
	var mu sync.Mutex
	var auth []string
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		fx.handler.ServeHTTP(w, r)
	}))
	s := newSource(t, srv.addr, Options{Token: "s3cret"})
	run(t, s)
	waitSynced(t, s)
	if s.Store("pods").Generation() == 0 {
		t.Error("no generation through the token")
	}
	mu.Lock()
	for _, a := range auth {
		if !strings.HasSuffix(a, " Bearer s3cret") {
			t.Errorf("request without the token: %q", a)
		}
	}
	contains(t, "requests", strings.Join(auth, "\n"), api.PathFrame, api.PathGeneration)
	mu.Unlock()

	for token, want := range map[string]string{
		"":      "the agent at " + srv.addr + " wants a token (401 Unauthorized): pass it with --token-file FILE or $INFORMTOP_ATTACH_TOKEN",
		"wrong": "the agent at " + srv.addr + " rejected the token (401 Unauthorized): check the one given with --token, --token-file or $INFORMTOP_ATTACH_TOKEN",
	} {
		s := newSource(t, srv.addr, Options{Token: token})
		run(t, s)
		waitfor.Until(t, "401", func() bool { return s.Status().Message != "connecting to "+srv.addr },
			func() string { return fmt.Sprint(s.Status()) })
		st := s.Pull(0, 0).Status
		if st.State != source.Connecting || st.Message != want || st.NextRetry.IsZero() {
			t.Errorf("token %q: status %+v\nwant message %q", token, st, want)
		}
		contains(t, "last error", st.LastError, "401 Unauthorized", "bearer token")
	}
}

func TestStoreReaderReadsThroughTheAgent(t *testing.T) {
	fx := newAgent(t, 12, 1<<10, agentserve.Options{Name: "ctrl"}, true)
	srv := serve(t, fx.handler)
	s := newSource(t, srv.addr, Options{})
	if s.Store("pods") != nil {
		t.Error("a reader before the first frame")
	}
	run(t, s)
	waitSynced(t, s)
	if s.Store("secrets") != nil {
		t.Error("a reader for an informer the agent does not have")
	}
	sr := s.Store("pods")
	if _, ok := sr.(interface{ QueueDeltas(string, string) any }); ok {
		t.Error("the reader is read-only")
	}
	entries, gen := sr.Entries()
	inProc, lgen := local.InformerStore(fx.inf).Entries()
	if len(entries) != 12 || gen != lgen || gen == 0 || sr.Generation() != gen {
		t.Fatalf("%d entries at generation %d (agent %d), generation %d", len(entries), gen, lgen, sr.Generation())
	}
	for i := range entries {
		if entries[i].Key != inProc[i].Key || len(entries[i].Labels) != len(inProc[i].Labels) || !entries[i].Created.Equal(inProc[i].Created) {
			t.Errorf("entry %d: %+v, agent %+v", i, entries[i], inProc[i])
		}
	}
	key := entries[3].Key
	obj, ok := sr.Object(key)
	want, _ := local.InformerStore(fx.inf).Object(key)
	if !ok || obj.Key != key || obj.YAML != want.YAML || obj.ResourceVersion != want.ResourceVersion || !obj.HasMetadata || obj.Kind != want.Kind {
		t.Errorf("object %q: ok %v, %+v", key, ok, obj)
	}
	if _, ok := sr.Object("nowhere/nothing"); ok {
		t.Error("an object that is not cached")
	}
	if names := sr.IndexNames(); len(names) != 1 || names[0] != "namespace" {
		t.Errorf("index names %q", names)
	}
	ns := sr.IndexValues("namespace")
	if len(ns) == 0 || strings.Join(ns, ",") != strings.Join(local.InformerStore(fx.inf).IndexValues("namespace"), ",") {
		t.Errorf("namespaces %q", ns)
	}
	keys := sr.IndexKeys("namespace", ns[0])
	if len(keys) == 0 || strings.Join(keys, ",") != strings.Join(local.InformerStore(fx.inf).IndexKeys("namespace", ns[0]), ",") {
		t.Errorf("keys in %s: %q", ns[0], keys)
	}
	if keys := sr.IndexKeys("namespace", ""); len(keys) != 0 {
		t.Errorf("keys without a namespace: %q", keys)
	}

	srv.stop() // errors read as empty, the generation as the last one read
	if e, g := sr.Entries(); e != nil || g != 0 {
		t.Errorf("entries while down: %d at %d", len(e), g)
	}
	if _, ok := sr.Object(key); ok || sr.IndexNames() != nil || sr.IndexValues("namespace") != nil || sr.IndexKeys("namespace", ns[0]) != nil {
		t.Error("reads while down are not empty")
	}
	if g := sr.Generation(); g != gen {
		t.Errorf("generation while down %d, want the last read %d", g, gen)
	}
}

// TestWaitSyncedSaysWhatHasNot: against an agent whose informer is still
// listing and whose listener is behind, WaitSynced names both and the
// agent's reason; with no agent, it names the error.
func TestWaitSyncedSaysWhatHasNot(t *testing.T) {
	fa := &fakeAgent{version: api.Version, status: http.StatusOK, body: api.Frame{
		Version: api.Version, Source: "ctrl", Next: 1, Taken: time.Now(),
		Snapshots: []source.Informer{
			{Name: "pods", Started: true, Listeners: []source.Listener{{Name: "slow"}}},
			{Name: "configmaps", Started: true, Synced: true, Listeners: []source.Listener{{Name: "fast", Synced: true}, {Name: "late"}}},
		},
		Reasons: source.Reasons{"pods": "still listing: 3 pages, 300 items so far"},
	}}
	srv := serve(t, fa)
	s := newSource(t, srv.addr, Options{})
	run(t, s)
	// The sentences name what the last frame and status say: wait for
	// them, so that the short wait below is not a race with the poller.
	waitfor.Until(t, "the first frame", func() bool { return len(s.Pull(0, 0).Snapshots) == 2 }, func() string { return fmt.Sprint(s.Status()) })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := s.WaitSynced(ctx)
	if err == nil {
		t.Fatal("synced")
	}
	contains(t, "error", err.Error(), "not synced at "+srv.addr, "informer pods (still listing: 3 pages, 300 items so far)",
		"listener slow of pods", "listener late of configmaps", "deadline exceeded")
	if strings.Contains(err.Error(), "fast") || strings.Contains(err.Error(), "informer configmaps") {
		t.Errorf("names what has synced: %v", err)
	}
	if r := s.Pull(0, 0).Reasons["pods"]; r != "still listing: 3 pages, 300 items so far" {
		t.Errorf("reason %q", r)
	}

	down := newSource(t, srv.addr, Options{})
	srv.stop()
	run(t, down)
	waitfor.Until(t, "the first failed poll", func() bool { return down.Status().LastError != "" }, func() string { return fmt.Sprint(down.Status()) })
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = down.WaitSynced(ctx)
	if err == nil {
		t.Fatal("synced without an agent")
	}
	// Nothing listening at the first contact: waiting will not help, so
	// WaitSynced says so without waiting for its deadline.
	if !errors.Is(err, source.ErrUnreachable) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v: want source.ErrUnreachable, before the deadline", err)
	}
	contains(t, "error", err.Error(), "nothing listens at "+srv.addr, "connection refused")
}

// blockingAgent holds every request until release is closed (or the
// client gives up), counting those that arrived and those still held.
type blockingAgent struct {
	arrived  chan struct{} // one send per request, buffered
	release  chan struct{}
	received atomic.Int64
	held     atomic.Int64
}

func newBlockingAgent() *blockingAgent {
	return &blockingAgent{arrived: make(chan struct{}, 64), release: make(chan struct{})}
}

func (a *blockingAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.received.Add(1)
	a.held.Add(1)
	defer a.held.Add(-1)
	select {
	case a.arrived <- struct{}{}:
	default:
	}
	select {
	case <-a.release:
	case <-r.Context().Done():
	}
}

// await waits for the next request to arrive; the deadline only guards
// against a hang.
func (a *blockingAgent) await(t *testing.T, what string) {
	t.Helper()
	select {
	case <-a.arrived:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no request reached the agent within 30s", what)
	}
}

// TestPullNeverWaitsForTheNetwork: while the poller's request hangs in an
// agent that does not answer, Pull returns and asks the agent nothing;
// a request that hangs times out with a sentence.
func TestPullNeverWaitsForTheNetwork(t *testing.T) {
	fa := newBlockingAgent()
	srv := serve(t, fa)
	defer close(fa.release) // before serve's cleanup closes the server
	s := newSource(t, srv.addr, Options{Timeout: time.Hour})
	run(t, s)
	fa.await(t, "the first poll")

	pulled := make(chan source.Frame)
	go func() {
		for range 20 {
			s.Pull(0, 0)
		}
		pulled <- s.Pull(0, 0)
	}()
	var f source.Frame
	select {
	case f = <-pulled:
	case <-time.After(30 * time.Second): // a hang guard, not a bound on Pull
		t.Fatal("Pull waited for the agent, which holds the poller's request")
	}
	if n, held := fa.received.Load(), fa.held.Load(); n != 1 || held != 1 {
		t.Errorf("after 21 pulls the agent received %d requests and holds %d; want the poller's one, still held", n, held)
	}
	if f.Status.State != source.Connecting || len(f.Snapshots) != 0 {
		t.Errorf("a pull while the first request hangs: %+v", f)
	}

	timing := newSource(t, srv.addr, Options{Timeout: 200 * time.Millisecond})
	run(t, timing)
	waitfor.Until(t, "a timeout", func() bool { return timing.Status().LastError != "" }, func() string { return fmt.Sprint(timing.Status()) })
	if got, want := timing.Status().LastError, "no answer from "+srv.addr+" within 200ms"; got != want {
		t.Errorf("last error %q, want %q", got, want)
	}
}

// TestRunsOnce: a Source runs once; another Run, while the first runs or
// after it stopped, returns at once and polls nothing.
func TestRunsOnce(t *testing.T) {
	fa := newBlockingAgent()
	srv := serve(t, fa)
	defer close(fa.release)
	s := newSource(t, srv.addr, Options{Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan struct{})
	go func() { s.Run(ctx); close(first) }()
	fa.await(t, "the first Run's poll")

	// A second Run with a context that never ends: it can only return by
	// declining to run.
	again := func(what string, ctx context.Context) {
		t.Helper()
		returned := make(chan struct{})
		go func() { s.Run(ctx); close(returned) }()
		select {
		case <-returned:
		case <-time.After(30 * time.Second): // a hang guard
			t.Fatalf("%s: Run did not return at once", what)
		}
	}
	again("while the first runs", ctx)
	select {
	case <-first:
		t.Fatal("the first Run stopped when the second returned")
	default:
	}
	if n := fa.received.Load(); n != 1 {
		t.Errorf("the agent received %d requests, want the first Run's one", n)
	}

	cancel()
	<-first
	fresh, stop := context.WithCancel(context.Background())
	defer stop()
	again("after the first stopped", fresh)
	if n := fa.received.Load(); n != 1 {
		t.Errorf("the agent received %d requests, want the first Run's one", n)
	}
}
