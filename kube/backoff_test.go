package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

const (
	refusedErr = `watch: Get "https://127.0.0.1:6443/api/v1/namespaces/a/secrets?allowWatchBookmarks=true&watch=true": dial tcp 127.0.0.1:6443: connect: connection refused`
	goneErr    = "watch: too old resource version: 5 (120)"
	deniedErr  = `list: secrets is forbidden: User "jane" cannot list resource "secrets" in API group "" in the namespace "a"`
)

// failing is an informer that failed n times, the last at at.
func failing(name string, synced bool, n uint64, msg string, at time.Time) source.Informer {
	return source.Informer{Name: name, Started: true, Synced: synced,
		Reflector: source.Reflector{Errors: n, LastError: msg, LastErrorTime: at}}
}

func watching(name string, heard time.Time) source.Informer {
	return source.Informer{Name: name, Started: true, Synced: true, Reflector: source.Reflector{WatchOpen: true, LastHeard: heard}}
}

// The next attempt follows client-go's backoff: 0.8 s doubling to 30 s,
// each wait up to twice that, counted afresh at the first failure more
// than two minutes after the count last started.
func TestNextAttemptFollowsTheReflectorsBackoff(t *testing.T) {
	a := newAttempts()
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	a.start("cm", t0)
	if at := a.next(watching("cm", t0), t0); !at.IsZero() {
		t.Fatalf("a watching informer tries again at %v", at)
	}
	at := t0.Add(3 * time.Minute)
	for i, want := range []time.Duration{1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond,
		12800 * time.Millisecond, 25600 * time.Millisecond, 51200 * time.Millisecond, time.Minute, time.Minute} {
		s := failing("cm", true, uint64(i+1), refusedErr, at)
		a.observe(s)
		if got := a.next(s, at).Sub(at); got != want {
			t.Errorf("failure %d: next attempt at the latest %s after it, want %s", i+1, got, want)
		}
		at = at.Add(10 * time.Second)
	}
	// Two minutes after the run began the reflector counts afresh.
	at = t0.Add(3*time.Minute + 2*time.Minute + time.Second)
	s := failing("cm", true, 9, goneErr, at)
	a.observe(s)
	if got := a.next(s, at).Sub(at); got != 1600*time.Millisecond {
		t.Errorf("after the reset: %s, want 1.6s", got)
	}
	// Two failures seen in one look count as two.
	s = failing("cm", true, 11, goneErr, at.Add(2*time.Second))
	a.observe(s)
	if got := a.next(s, at.Add(2*time.Second)).Sub(at.Add(2 * time.Second)); got != 6400*time.Millisecond {
		t.Errorf("third failure of the run: %s, want 6.4s", got)
	}
	// A latest time gone by without a failure seen: one more step.
	if got := a.next(s, at.Add(10*time.Second)).Sub(at.Add(2 * time.Second)); got != 12800*time.Millisecond {
		t.Errorf("overdue: %s after the last failure, want 12.8s", got)
	}
	// A restarted informer's backoff is new.
	a.start("cm", at.Add(3*time.Second))
	s = failing("cm", false, 1, refusedErr, at.Add(4*time.Second))
	a.observe(s)
	if got := a.next(s, at.Add(4*time.Second)).Sub(at.Add(4 * time.Second)); got != 1600*time.Millisecond {
		t.Errorf("first failure of a restarted informer: %s, want 1.6s", got)
	}
}

func testSource(facts map[string]informerFacts) *Source {
	return &Source{server: "https://127.0.0.1:6443", facts: facts, attempts: newAttempts()}
}

// The connection's state, per transition: connecting, live, disconnected
// only while the newest word is that nothing answers, live again as soon
// as the server answers, even with a 410 or a 403.
func TestConnectionState(t *testing.T) {
	now := time.Now()
	s := testSource(map[string]informerFacts{"configmaps": {}, "secrets": {}})
	starting := []source.Informer{{Name: "configmaps", Started: true}, {Name: "secrets", Started: true}}
	if st := s.status(starting); st.State != source.Connecting {
		t.Errorf("before anything: %+v", st)
	}
	up := []source.Informer{watching("configmaps", now), watching("secrets", now)}
	if st := s.status(up); st.State != source.Live || st.Message != "" {
		t.Errorf("watching: %+v", st)
	}
	down := []source.Informer{failing("configmaps", true, 1, strings.ReplaceAll(refusedErr, "secrets", "configmaps"), now.Add(time.Second)),
		failing("secrets", true, 1, refusedErr, now.Add(2*time.Second))}
	st := s.status(down)
	if st.State != source.Disconnected || !strings.Contains(st.Message, "cannot reach the API server") ||
		!strings.Contains(st.Message, "connection refused") || !strings.Contains(st.Message, "client-go retries within") || st.NextRetry.IsZero() {
		t.Errorf("the server gone: %+v", st)
	}
	if strings.Contains(st.Message, "secrets") {
		t.Errorf("the connection's sentence quotes one informer's request: %q", st.Message)
	}
	// Back: one informer's watch got 410 Gone and waits to relist.
	back := []source.Informer{down[0], failing("secrets", true, 2, goneErr, now.Add(5*time.Second))}
	if st := s.status(back); st.State != source.Live {
		t.Errorf("the server answered 410: %+v", st)
	}
	// Every informer forbidden: the server answers, nothing is disconnected.
	forbidden := []source.Informer{failing("configmaps", false, 1, strings.ReplaceAll(deniedErr, "secrets", "configmaps"), now),
		failing("secrets", false, 1, deniedErr, now)}
	if st := testSource(map[string]informerFacts{}).status(forbidden); st.State != source.Live || st.Message != "" {
		t.Errorf("every informer forbidden: %+v", st)
	}
}

// Why an informer has not synced, from its link: watch down, relist
// pending with when client-go lists again, forbidden; and "the other
// resources keep working" only when one does.
func TestLinkReasons(t *testing.T) {
	now := time.Now()
	s := testSource(map[string]informerFacts{"configmaps": {}, "secrets": {}})
	s.attempts.start("secrets", now.Add(-time.Second))
	for _, tc := range []struct {
		snap source.Informer
		want []string
	}{
		{failing("secrets", false, 1, refusedErr, now), []string{"watch down: cannot reach the API server", "connection refused", "client-go retries within"}},
		{failing("secrets", false, 2, goneErr, now), []string{"relist pending: the server answered 410 Gone", "client-go lists again within"}},
		{failing("secrets", false, 3, deniedErr, now), []string{"forbidden: RBAC denies it", "client-go retries within"}},
	} {
		s.attempts.observe(tc.snap)
		why := s.reason("secrets", tc.snap)
		for _, w := range tc.want {
			if !strings.Contains(why, w) {
				t.Errorf("%q lacks %q", why, w)
			}
		}
		if strings.Contains(why, "https://") {
			t.Errorf("%q quotes the request", why)
		}
	}
	// The time said is the latest the reflector's backoff allows.
	if why := linkReason(failing("secrets", true, 3, goneErr, now), now.Add(6400*time.Millisecond), now); !strings.HasSuffix(why, "client-go lists again within 6s (its backoff)") {
		t.Errorf("%q", why)
	}
	denied := testSource(map[string]informerFacts{"configmaps": {denied: "denied: you may not list configmaps"}, "secrets": {denied: "denied: you may not list secrets"}, "pods": {}})
	// pods is allowed but its server is away: nothing keeps working.
	denied.status([]source.Informer{failing("configmaps", false, 1, deniedErr, now), failing("secrets", false, 1, deniedErr, now),
		failing("pods", false, 1, refusedErr, now)})
	if why := denied.reason("secrets", source.Informer{Name: "secrets"}); strings.Contains(why, "keep working") {
		t.Errorf("0/3 working, yet %q", why)
	}
	// A refused informer's reflector retrying its list is not working:
	// the server will refuse that list too.
	retrying := failing("configmaps", false, 2, deniedErr, now)
	retrying.Reflector.ListInProgress = true
	denied.status([]source.Informer{retrying, failing("secrets", false, 1, deniedErr, now), failing("pods", false, 1, refusedErr, now)})
	if why := denied.reason("secrets", source.Informer{Name: "secrets"}); strings.Contains(why, "keep working") {
		t.Errorf("only a refused list retrying, yet %q", why)
	}
	denied.status([]source.Informer{failing("configmaps", false, 1, deniedErr, now), failing("secrets", false, 1, deniedErr, now),
		watching("pods", now)})
	if why := denied.reason("secrets", source.Informer{Name: "secrets"}); !strings.HasSuffix(why, "; the other resources keep working") {
		t.Errorf("pods watching, yet %q", why)
	}
}
