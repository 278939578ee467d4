package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/report"
)

// TestBookmarkInterval measures how often kube-apiserver sends a bookmark
// to a watch that asked for them, as client-go's reflector does:
// engine.SilentAfter rests on it. Through informtop's own informer, so the
// bookmarks are dated where the silent-watch check reads them. Two
// intervals: from the watch opening to the first bookmark, and between the
// first two. Takes about two minutes, side by side with the other slow
// tests.
func TestBookmarkInterval(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	ns := namespace(t, testClients(t, c))
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}}, true)
	inf := s.Informer("configmaps").Engine()

	deadline := time.Now().Add(2*engine.SilentAfter + 30*time.Second)
	var marks []time.Time // the watch opening, then each bookmark
	for len(marks) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of the watch opening and two bookmarks within %s: %v", len(marks), 2*engine.SilentAfter+30*time.Second, marks)
		}
		snap := inf.Snapshot()
		r := snap.Reflector
		if r.Watches > 1 {
			t.Fatalf("the watch restarted (%d watches) while measuring; last error %q", r.Watches, r.LastError)
		}
		switch {
		case len(marks) == 0 && r.WatchOpen:
			marks = append(marks, r.WatchSince)
		case len(marks) > 0 && r.LastBookmarkTime.After(marks[len(marks)-1]):
			marks = append(marks, r.LastBookmarkTime)
		}
		if f := engine.FreshnessOf(snap, snap.Taken); f.Silent {
			t.Fatalf("a healthy watch was called silent: %+v", f)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i := 1; i < len(marks); i++ {
		gap := marks[i].Sub(marks[i-1])
		t.Logf("bookmark %d came %s after the %s", i, gap.Round(time.Millisecond), map[bool]string{true: "watch opened", false: "previous bookmark"}[i == 1])
		if gap > engine.SilentAfter {
			t.Errorf("bookmark %d came %s after the previous mark, longer than SilentAfter (%s)", i, gap, engine.SilentAfter)
		}
	}
}

// TestFrozenAPIServerIsSilent: the API server is stopped with SIGSTOP, so
// its connections stay open and nothing arrives. Within SilentAfter plus a
// few seconds the report's JSON says the informer is silent; after
// SIGCONT the warning clears.
func TestFrozenAPIServerIsSilent(t *testing.T) {
	t.Parallel()
	c := kubetest.Start(t) // its own cluster: this test freezes the API server
	ns := namespace(t, testClients(t, c))
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}}, true)
	eventually(t, "the watch opening", func() (bool, string) {
		r := s.Informer("configmaps").Engine().Snapshot().Reflector
		return r.WatchOpen, fmt.Sprintf("%+v", r)
	})
	if silent(t, s) {
		t.Fatal("silent before the freeze")
	}

	frozen := time.Now()
	c.FreezeAPIServer(t)
	limit := engine.SilentAfter + 5*time.Second
	for !silent(t, s) {
		if time.Since(frozen) > limit {
			t.Fatalf("no silent warning %s after the API server froze", limit)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("silent %s after the freeze", time.Since(frozen).Round(time.Second))

	c.ThawAPIServer()
	eventually(t, "the silent warning clearing after SIGCONT", func() (bool, string) {
		return !silent(t, s), fmt.Sprintf("%+v", s.Informer("configmaps").Engine().Snapshot().Reflector)
	})
}

// silent reads the configmaps informer's freshness from the JSON report,
// as `informtop --once --json` prints it.
func silent(t *testing.T, s *Source) bool {
	t.Helper()
	f := s.Pull(0, 0)
	var out bytes.Buffer
	if err := report.WriteJSON(&out, report.Build("kube", f.Snapshots, f.Reasons, f.EventStats, nil, time.Now())); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Informers []struct {
			Freshness struct {
				Silent bool `json:"silent"`
			} `json:"freshness"`
		} `json:"informers"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Informers) != 1 {
		t.Fatalf("report %s: %v", out.String(), err)
	}
	return doc.Informers[0].Freshness.Silent
}
