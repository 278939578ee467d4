package demo

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
)

func TestScenariosCatalogue(t *testing.T) {
	t.Parallel()
	var names []string
	for _, s := range Scenarios() {
		names = append(names, s.Name)
		if s.Summary == "" {
			t.Errorf("%s has no summary", s.Name)
		}
	}
	want := []string{"steady", "burst", "stalled-listener", "watch-drop", "expired", "resync", "initial-sync", "fifo-compare", "mutating-handler", "slow-watcher", "watch-cache-window", "bookmarks"}
	if !slices.Equal(names, want) {
		t.Errorf("Scenarios() = %v, want %v", names, want)
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Scenario: "nope"})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "stalled-listener") {
		t.Errorf("unknown scenario: %v; want an error naming it and the valid ones", err)
	}
	for _, cfg := range []Config{{TimeScale: -1}, {Objects: -1}, {Queue: source.QueueKind(7)}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted a bad config", cfg)
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg       Config
		scenario  string
		objects   int
		rate      float64
		informers []string
	}{
		{Config{Objects: 10}, "steady", 10, defaultRate, []string{"pods", "configmaps", "deployments.apps", "secrets"}},
		{Config{Scenario: "resync"}, "resync", 50, 2, []string{"pods"}},
		{Config{Scenario: "fifo-compare", Rate: 7, Objects: 3}, "fifo-compare", 3, 7, []string{"pods-deltafifo", "pods-realfifo"}},
		{Config{Scenario: "burst", Rate: -1, Objects: 3}, "burst", 3, 0, []string{"pods"}},
	} {
		d := newDemo(t, tc.cfg)
		if d.Scenario() != tc.scenario || d.Title() != "demo · "+tc.scenario || d.Kind() != "demo" {
			t.Errorf("%+v: scenario %q, title %q, kind %q", tc.cfg, d.Scenario(), d.Title(), d.Kind())
		}
		if got := d.cluster.Len("pods"); got != tc.objects {
			t.Errorf("%+v: %d pods, want %d", tc.cfg, got, tc.objects)
		}
		if d.Rate() != tc.rate {
			t.Errorf("%+v: rate %v, want %v", tc.cfg, d.Rate(), tc.rate)
		}
		var names []string
		for i, inf := range d.Informers() {
			names = append(names, inf.Name())
			if d.Store(inf.Name()) == nil || d.States()[i].Name != inf.Name() {
				t.Errorf("%+v: no store or snapshot for %s", tc.cfg, inf.Name())
			}
		}
		if !slices.Equal(names, tc.informers) {
			t.Errorf("%+v: informers %v, want %v", tc.cfg, names, tc.informers)
		}
		if d.Store("nope") != nil {
			t.Error("Store of an unknown informer is not nil")
		}
		var src source.Source = d
		if _, ok := src.(source.Processing); !ok {
			t.Error("a demo cannot pause")
		}
		if _, ok := src.(source.Faults); !ok {
			t.Error("a demo cannot break its server")
		}
		if notes := d.Notes(); len(notes) != 1 || notes[0] != d.sc.summary {
			t.Errorf("notes before Run: %q", notes)
		}
	}
	// Resolved without building: 50,000 pods take seconds to generate.
	if rc, _, err := resolve(Config{Scenario: "initial-sync"}); err != nil || rc.Objects != 50000 || rc.TimeScale != 1 {
		t.Errorf("initial-sync defaults: %d objects, time scale %v, %v; want 50000 and 1", rc.Objects, rc.TimeScale, err)
	}
}

// TestSourceWhileRunning reads the demo as the dashboard does: notes that
// follow the script, the shared event log, snapshots and caches.
func TestSourceWhileRunning(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Scenario: "stalled-listener", Seed: 12, Objects: 20, Rate: 100, TimeScale: 0.01})
	g := holdSteps(d, "stall slow", "resume slow")
	start(t, d)
	g.await(t, "stall slow")
	intro := d.Notes()
	// The scenario's note, then how the initial list came (streamed: the
	// demo's default, as v0.37 against v1.37), then the live status.
	if !strings.HasPrefix(intro[0], "Stalled listener:") || len(intro) != 4 || !strings.HasPrefix(intro[2], "Initial list of pods: streamed (WatchList, as client-go v0.37 does), 20 ADDED events then a bookmark") || !strings.HasPrefix(intro[3], "fast: ") {
		t.Errorf("notes at the intro: %q", intro)
	}
	g.let("stall slow")
	g.await(t, "resume slow")
	if note := d.Notes()[0]; !strings.Contains(note, "slow listener is stalled") {
		t.Errorf("notes after the stall: %q", note)
	}

	// One ring carries every stage's events and the script's own steps.
	var types []source.EventType
	var script []string
	var cursor uint64
	waitfor.Seen(t, "events", func() (bool, string) {
		f := d.Pull(cursor, 0)
		cursor = f.Next
		for _, ev := range f.Events {
			types = append(types, ev.Type)
			if ev.Type == source.EventControl && strings.HasPrefix(ev.Detail, "scenario ") {
				script = append(script, ev.Detail)
			}
		}
		return slices.Contains(types, source.EventHandlerFinish) && len(script) >= 2, "still reading"
	})
	for _, want := range []source.EventType{source.EventListDone, source.EventWatchOpen, source.EventSynced, source.EventPop} {
		if !slices.Contains(types, want) {
			t.Errorf("no %s event in the log", want)
		}
	}
	if script[0] != "scenario stalled-listener: intro" || script[1] != "scenario stalled-listener: stall slow" {
		t.Errorf("script events %q", script)
	}
	store := d.Store("pods")
	entries, _ := store.Entries()
	if len(entries) == 0 {
		t.Fatal("empty cache")
	}
	if obj, ok := store.Object(entries[0].Key); !ok || len(store.IndexNames()) != 2 || !strings.Contains(obj.YAML, "name:") {
		t.Errorf("store: object %s ok=%v, indexes %v", entries[0].Key, ok, store.IndexNames())
	}
	if entries[0].Created.IsZero() || len(entries[0].Labels) == 0 {
		t.Errorf("store entry without creation time or labels: %+v", entries[0])
	}
}

// TestStopReleasesStalledListener: a listener stuck in a callback does not
// keep Run from returning.
func TestStopReleasesStalledListener(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Scenario: "stalled-listener", Seed: 13, Objects: 5, Rate: 50, TimeScale: 0.001})
	g := holdSteps(d, "resume slow")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	g.await(t, "resume slow")
	waitfor.Seen(t, "slow stuck", func() (bool, string) {
		return listenerStats(t, snapshotOf(t, d, "pods"), "slow").InCallback != "", "not in a callback"
	})
	cancel()
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatal("Run did not return while a listener was stalled")
	}
	for _, s := range d.States() {
		if !s.Stopped {
			t.Errorf("%s not stopped", s.Name)
		}
	}
	d.Run(context.Background()) // a second Run returns at once
}
