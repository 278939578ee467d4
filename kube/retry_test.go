package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// An outage of the real API server, state by state: both informers'
// watches down and the connection disconnected, saying when client-go
// tries again without quoting either informer's request; a retry while
// the server is still away restarts nothing (the caches keep what they
// hold); once it is back, a retry restarts both at once and they sync.
func TestOutageStatesAndRetryNow(t *testing.T) {
	c := kubetest.Start(t) // its own cluster: this test stops the API server
	cs := testClients(t, c)
	ns := namespace(t, cs)
	bg := context.Background()
	createConfigMaps(t, cs, ns, "cm-%02d", 5)
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps", "secrets"}}, true)
	waitfor.Within(t, waitFor, "both watches opening", func() (bool, string) {
		f := s.Pull(0, 0)
		return source.LinkOf(f.Snapshots[0], false) == source.LinkConnected && source.LinkOf(f.Snapshots[1], false) == source.LinkConnected, fmt.Sprintf("%+v", f.Status)
	})

	c.StopAPIServer()
	stopped := time.Now()
	waitfor.Within(t, waitFor, "the outage seen, state by state", func() (bool, string) {
		f := s.Pull(0, 0)
		next := s.NextAttempts()
		ok := f.Status.State == source.Disconnected && !f.Status.NextRetry.IsZero() && len(next) == 2
		for _, snap := range f.Snapshots {
			ok = ok && source.LinkOf(snap, false) == source.LinkWatchDown
		}
		return ok, fmt.Sprintf("status %+v, next attempts %v", f.Status, next)
	})
	st := s.Pull(0, 0).Status
	if !strings.Contains(st.Message, "cannot reach the API server") || !strings.Contains(st.Message, "client-go retries") ||
		strings.Contains(st.Message, "/secrets") || strings.Contains(st.Message, "/configmaps") {
		t.Errorf("the connection's sentence: %q", st.Message)
	}
	before := s.Informer("configmaps")
	if restarted, err := s.RetryNow(bg); err == nil || !strings.Contains(err.Error(), "still does not answer") || len(restarted) != 0 {
		t.Errorf("retry while the server is away: %v, %v", restarted, err)
	}
	if s.Informer("configmaps") != before || len(cached(s, "configmaps")) != 5 {
		t.Errorf("a refused retry replaced the informer or emptied its cache (%d cached)", len(cached(s, "configmaps")))
	}

	// The server stays away until the configmaps reflector's backoff has
	// grown to waits of 12.8 s at least (its fifth failure in the run,
	// 12–25 s of outage): coming back, it waits that out, and a retry is
	// what ends it. (The secrets one may come back on its own meanwhile.)
	waitfor.Within(t, waitFor, "the backoff growing", func() (bool, string) {
		s.Pull(0, 0) // the frame is what follows the failures
		return backedOff(s, "configmaps", 5), runs(s)
	})
	t.Logf("backed off %s after the server stopped: %s", time.Since(stopped).Round(time.Second), runs(s))
	c.StartAPIServer(t)
	back := time.Now()
	restarted, err := s.RetryNow(bg)
	if err != nil || len(restarted) == 0 || restarted[0] != "configmaps" {
		t.Fatalf("retry once the server is back: %v, %v", restarted, err)
	}
	waitfor.Within(t, waitFor, "both informers watching again", func() (bool, string) {
		f := s.Pull(0, 0)
		ok := f.Status.State == source.Live
		for _, snap := range f.Snapshots {
			ok = ok && snap.Synced && snap.Reflector.WatchOpen
		}
		return ok, fmt.Sprintf("%+v", f.Status)
	})
	t.Logf("watching again %s after the retry", time.Since(back).Round(10*time.Millisecond))
	if s.Informer("configmaps") == before || len(cached(s, "configmaps")) != 5 || len(s.NextAttempts()) != 0 {
		t.Errorf("after the retry: replaced %t, %d cached, next attempts %v", s.Informer("configmaps") != before, len(cached(s, "configmaps")), s.NextAttempts())
	}
	if restarted, err := s.RetryNow(bg); err != nil || len(restarted) != 0 {
		t.Errorf("a retry with nothing waiting: %v, %v", restarted, err)
	}
}

// A user refused every resource asked for is not disconnected: the
// server answers, each informer is forbidden, and no sentence says the
// others keep working. A retry re-checks access and restarts nothing.
func TestEveryInformerForbidden(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	kc := c.RestrictedUser(t, ns, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}})
	s := start(t, Options{Flags: flags(t, kc, ns), Resources: []string{"secrets", "pods"}}, false)
	waitfor.Within(t, waitFor, "both informers refused by the server", func() (bool, string) {
		f := s.Pull(0, 0)
		ok := true
		for _, snap := range f.Snapshots {
			ok = ok && snap.Reflector.LastError != "" && source.LinkOf(snap, true) == source.LinkForbidden
		}
		return ok, fmt.Sprintf("%+v %v", f.Status, f.Reasons)
	})
	f := s.Pull(0, 0)
	if f.Status.State != source.Live || f.Status.Message != "" {
		t.Errorf("every informer forbidden: status %+v, want live (the server answers)", f.Status)
	}
	for name, why := range f.Reasons {
		if !strings.Contains(why, "may not list or watch") || strings.Contains(why, "keep working") {
			t.Errorf("%s: %q", name, why)
		}
	}
	if restarted, err := s.RetryNow(context.Background()); err == nil || !strings.Contains(err.Error(), "still may not") || len(restarted) != 0 {
		t.Errorf("retry of forbidden informers: %v, %v", restarted, err)
	}
}

// backedOff reports whether the named informer's reflector has failed at
// least n times in its current run, the last less than a second ago: its
// next attempt is reflectorWait(n) away at the earliest.
func backedOff(s *Source, name string, n int) bool {
	s.attempts.mu.Lock()
	defer s.attempts.mu.Unlock()
	run := s.attempts.runs[name]
	return run != nil && run.steps >= n && time.Since(run.last) < time.Second
}

func runs(s *Source) string {
	s.attempts.mu.Lock()
	defer s.attempts.mu.Unlock()
	var b strings.Builder
	for name, r := range s.attempts.runs {
		fmt.Fprintf(&b, "%s: %d failures since %s, the last %s ago; ", name, r.steps, r.began.Format(time.StampMilli), time.Since(r.last).Round(time.Millisecond))
	}
	return b.String()
}
