package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// A watch that comes back after its resourceVersion was compacted, from a
// real API server, state by state: the server dies under a synced
// informer (watch down), etcd's history is compacted meanwhile, and the
// server comes back; the reflector's re-watch from its old
// resourceVersion is answered 410 Gone, it waits out client-go's backoff
// (relist pending, with the 410 as its cause and when it lists again),
// then lists again and watches (connected). The event log holds the 410
// and the relist, in that order. The watch cache and etcd word the 410
// differently; informtop calls both a 410.
func TestWatchGoneAfterCompactionRelists(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		cause string // the server's words for the 410
	}{
		{"watch cache", nil, "too old resource version"},
		{"watches served by etcd", []string{"--watch-cache=false"}, "The resourceVersion for the provided watch is too old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			goneAfterCompaction(t, kubetest.WithAPIServerFlags(tc.flags...), tc.cause)
		})
	}
}

func goneAfterCompaction(t *testing.T, flag kubetest.Option, cause string) {
	c := kubetest.Start(t, flag) // its own cluster: this test stops the API server and compacts etcd
	cs := testClients(t, c)
	ns := namespace(t, cs)
	createConfigMaps(t, cs, ns, "cm-%02d", 3)
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}}, true)
	// A change the watch carries: a watch the server ends within a second
	// of opening, with no event, is one client-go calls "very short" and
	// answers by listing again (a streamed list from its resourceVersion,
	// which never gets a 410), not by watching again from where it was.
	cm := configMap(ns, "cm-00")
	cm.Data = map[string]string{"changed": "yes"}
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitfor.Within(t, waitFor, "the watch carrying the change", func() (bool, string) {
		snap := s.Pull(0, 0).Snapshots[0]
		return source.LinkOf(snap, false) == source.LinkConnected && snap.Reflector.WatchModified == 1, fmt.Sprintf("%+v", snap.Reflector)
	})
	links := recordLinks(t, s)

	// Killed, not stopped: a server shutting down may still take the
	// reflector's re-watch and end it at once, a very short watch again,
	// and client-go starts over with a streamed list.
	c.KillAPIServer(t)
	waitfor.Within(t, waitFor, "the watch down while the server is away", func() (bool, string) {
		snap := s.Pull(0, 0).Snapshots[0]
		return source.LinkOf(snap, false) == source.LinkWatchDown, fmt.Sprintf("%+v", snap.Reflector)
	})
	rev := c.CompactEtcd(t)
	c.StartAPIServer(t)
	waitfor.Within(t, waitFor, "the relist after the 410", func() (bool, string) {
		last := links.last()
		return last.link == source.LinkConnected && last.snap.Reflector.Relists == 1, links.String()
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the event log:\n%s", lifecycle(s))
		}
	})
	steps := links.stop()
	t.Logf("etcd compacted to revision %d; links: %s", rev, links)

	// What the header said, state by state. Listing again is brief, and a
	// watch that opens and at once gets its 410 may not be seen open.
	var seen []source.Link
	for _, st := range steps {
		if st.link != source.LinkSyncing && (len(seen) == 0 || seen[len(seen)-1] != st.link) {
			seen = append(seen, st.link)
		}
	}
	want := []source.Link{source.LinkConnected, source.LinkWatchDown, source.LinkRelistPending, source.LinkConnected}
	if i := slices.Index(seen, source.LinkRelistPending); i == 3 && seen[2] == source.LinkConnected {
		seen = slices.Delete(seen, 2, 3) // the watch opened, then its first event was the 410
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("links %v, want %v: %s", seen, want, links)
	}

	pending := steps[slices.IndexFunc(steps, func(st linkStep) bool { return st.link == source.LinkRelistPending })]
	r := pending.snap.Reflector
	if !strings.Contains(r.LastError, "410 Gone") || !strings.Contains(r.LastError, cause) || !source.Expired(r.LastError) {
		t.Errorf("relist pending after %q, want the server's 410 (%q)", r.LastError, cause)
	}
	if !pending.snap.Synced || r.WatchErrors != 1 {
		t.Errorf("relist pending: synced %t, %d watch errors, want the cache kept and one 410", pending.snap.Synced, r.WatchErrors)
	}
	if pending.next.IsZero() || !pending.next.After(r.LastErrorTime) {
		t.Errorf("relist pending without when client-go lists again: next %v, the 410 at %v", pending.next, r.LastErrorTime)
	}
	why := linkReason(pending.snap, pending.next, pending.at)
	for _, part := range []string{"relist pending: the server answered 410 Gone", "client-go lists again within"} {
		if !strings.Contains(why, part) {
			t.Errorf("the reason while relist pending, %q, lacks %q", why, part)
		}
	}

	// The event log: the 410, then the relist, its list and a new watch.
	var order []string
	gone := ""
	var relistAt time.Time
	for _, e := range s.Pull(0, 0).Events {
		switch {
		case e.Informer != "configmaps":
		case e.Type == source.EventWatchError && source.Expired(e.Detail):
			gone = e.Detail
			order = append(order, "410")
		case e.Type == source.EventRelist:
			relistAt = e.Time
			order = append(order, string(e.Type))
		case e.Type == source.EventListDone && gone != "":
			order = append(order, string(e.Type))
		}
	}
	if wantOrder := []string{"410", string(source.EventRelist), string(source.EventListDone)}; !slices.Equal(order, wantOrder) {
		t.Errorf("events %v, want %v", order, wantOrder)
	}
	if !strings.Contains(gone, cause) {
		t.Errorf("the 410's event says %q, want the server's %q", gone, cause)
	}
	// client-go's backoff counted every failure informtop counted: its
	// wait after the 410 is at least that step's, and informtop's latest
	// time is that step's longest.
	t.Logf("the 410 at %s, failure %d; informtop said the relist comes by +%s; it came at +%s",
		r.LastErrorTime.Format("15:04:05.000"), r.Errors, pending.next.Sub(r.LastErrorTime), relistAt.Sub(r.LastErrorTime))
	if waited, least := relistAt.Sub(r.LastErrorTime), reflectorWait(int(r.Errors)); waited < least {
		t.Errorf("client-go listed again %s after the 410, failure %d, whose wait is at least %s: informtop counts more failures than client-go's backoff", waited, r.Errors, least)
	}
	if st := s.Pull(0, 0).Status; st.State != source.Live {
		t.Errorf("status after the relist: %+v", st)
	}
}

// linkStep is an informer's link when it changed, with the figures,
// when client-go tries again, as the source said then, and when.
type linkStep struct {
	link source.Link
	snap source.Informer
	next time.Time
	at   time.Time
}

// linkLog samples the source's first informer as a dashboard refreshes,
// keeping each change of its link.
//
// Locking: mu guards steps.
type linkLog struct {
	mu    sync.Mutex
	steps []linkStep
	done  chan struct{}
	wg    sync.WaitGroup
}

// recordLinks starts sampling s every 10 ms until stop (or the end of t).
func recordLinks(t *testing.T, s *Source) *linkLog {
	l := &linkLog{done: make(chan struct{})}
	tick := time.NewTicker(10 * time.Millisecond)
	l.wg.Go(func() {
		defer tick.Stop()
		for {
			f := s.Pull(0, 0)
			snap := f.Snapshots[0]
			st := linkStep{link: source.LinkOf(snap, false), snap: snap, next: s.NextAttempts()[snap.Name], at: time.Now()}
			l.mu.Lock()
			if n := len(l.steps); n == 0 || l.steps[n-1].link != st.link {
				l.steps = append(l.steps, st)
			}
			l.mu.Unlock()
			select {
			case <-l.done:
				return
			case <-tick.C:
			}
		}
	})
	t.Cleanup(func() { l.stop() })
	return l
}

// last is the newest change seen.
func (l *linkLog) last() linkStep {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.steps) == 0 {
		return linkStep{}
	}
	return l.steps[len(l.steps)-1]
}

// stop ends the sampling and returns the changes seen.
func (l *linkLog) stop() []linkStep {
	l.mu.Lock()
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	l.mu.Unlock()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.steps)
}

func (l *linkLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for i, st := range l.steps {
		if i > 0 {
			b.WriteString(" → ")
		}
		fmt.Fprintf(&b, "%s (%s; %q)", st.link, st.at.Format("15:04:05.000"), st.snap.Reflector.LastError)
	}
	return b.String()
}

// lifecycle is the source's event log without per-item events, a line each.
func lifecycle(s *Source) string {
	var b strings.Builder
	for _, e := range s.Pull(0, 0).Events {
		if e.Lifecycle() {
			fmt.Fprintf(&b, "%s %s %s %q %d\n", e.Time.Format("15:04:05.000"), e.Informer, e.Type, e.Detail, e.Count)
		}
	}
	return b.String()
}
