package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/source/local"
)

// TestBookmarkInterval measures how often kube-apiserver sends a bookmark
// to a watch that asked for them, as client-go's reflector does:
// source.SilentAfter rests on it. Two informers side by side, through
// informtop's own engine so the bookmarks are dated where the silent-watch
// check reads them: configmaps, written once after the watch opened, get a
// bookmark about every minute; podtemplates, which nobody writes, may get
// none (the watch cache sends one only once the resource's resourceVersion
// has moved past the watch's start), which is why a watch quiet since it
// opened has the longer QuietWatchSilentAfter. Neither is ever called
// silent. About two minutes, side by side with the other slow tests.
func TestBookmarkInterval(t *testing.T) {
	t.Parallel()
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps", "podtemplates"}}, true)
	active, quiet := local.EngineOf(s.Informer("configmaps")), local.EngineOf(s.Informer("podtemplates"))
	waitfor.Within(t, waitFor, "both watches opening", func() (bool, string) {
		a, q := active.Snapshot().Reflector, quiet.Snapshot().Reflector
		return a.WatchOpen && q.WatchOpen, fmt.Sprintf("configmaps %t, podtemplates %t", a.WatchOpen, q.WatchOpen)
	})
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), configMap(ns, "progress"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	limit := 2*source.SilentAfter + 30*time.Second
	marks := []time.Time{active.Snapshot().Reflector.WatchSince} // the watch opening, then each bookmark
	waitfor.Every(t, 100*time.Millisecond, limit, "two bookmarks on configmaps after the watch opened", func() (bool, string) {
		for _, inf := range []*engine.Informer{active, quiet} {
			snap := local.InformerOf(inf.Snapshot())
			if snap.Reflector.Watches > 1 {
				t.Fatalf("%s: the watch restarted while measuring; last error %q", snap.Name, snap.Reflector.LastError)
			}
			if f := source.FreshnessOf(snap, snap.Taken); f.Silent {
				t.Fatalf("%s: a healthy watch was called silent: %+v", snap.Name, f)
			}
		}
		if b := active.Snapshot().Reflector.LastBookmarkTime; b.After(marks[len(marks)-1]) {
			marks = append(marks, b)
		}
		return len(marks) >= 3, fmt.Sprintf("%d bookmarks", len(marks)-1)
	})
	for i := 1; i < len(marks); i++ {
		gap := marks[i].Sub(marks[i-1])
		from := map[bool]string{true: "the watch opened", false: "the previous bookmark"}[i == 1]
		t.Logf("configmaps: bookmark %d came %s after %s", i, gap.Round(time.Millisecond), from)
		if gap > source.SilentAfter {
			t.Errorf("configmaps: bookmark %d came %s after %s, longer than SilentAfter (%s)", i, gap, from, source.SilentAfter)
		}
	}
	q := quiet.Snapshot().Reflector
	t.Logf("podtemplates (never written): %d bookmarks in %s", q.WatchBookmarks, time.Since(q.WatchSince).Round(time.Second))
	// Whether a never-written resource gets a bookmark depends on the
	// server (its watch cache's resourceVersion may move with progress
	// notifications from etcd while other tests write); the longer
	// threshold only has to hold when it gets none, and the loop above
	// checked that it is never called silent either way.
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
	waitfor.Within(t, waitFor, "the watch opening", func() (bool, string) {
		r := s.Informer("configmaps").State().Reflector
		return r.WatchOpen, fmt.Sprintf("%+v", r)
	})
	// A write the watch delivers: it has shown progress, so SilentAfter applies.
	if _, err := testClients(t, c).CoreV1().ConfigMaps(ns).Create(context.Background(), configMap(ns, "progress"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitfor.Within(t, waitFor, "the watch delivering the write", func() (bool, string) {
		r := s.Informer("configmaps").State().Reflector
		return r.WatchAdded > 0, fmt.Sprintf("%+v", r)
	})
	if silent(t, s) {
		t.Fatal("silent before the freeze")
	}

	frozen := time.Now()
	c.FreezeAPIServer(t)
	limit := source.SilentAfter + 5*time.Second
	waitfor.Every(t, 250*time.Millisecond, limit, "a silent warning after the API server froze", func() (bool, string) {
		return silent(t, s), fmt.Sprintf("%+v", s.Informer("configmaps").State().Reflector)
	})
	t.Logf("silent %s after the freeze", time.Since(frozen).Round(time.Second))

	c.ThawAPIServer()
	waitfor.Within(t, waitFor, "the silent warning clearing after SIGCONT", func() (bool, string) {
		return !silent(t, s), fmt.Sprintf("%+v", s.Informer("configmaps").State().Reflector)
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
