package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/informtop/informtop/demo"
)

// scenarioReport is the part of --once --json a scenario's lesson is read from.
type scenarioReport struct {
	Paused      bool   `json:"paused"`
	PausedBy    string `json:"pausedBy"`
	Scenario    string `json:"scenario"`
	Step        string `json:"step"`
	ScriptEnded bool   `json:"scriptEnded"`
	Notes       []struct {
		Step  string   `json:"step"`
		Lines []string `json:"lines"`
	} `json:"notes"`
	Informers []struct {
		Name  string `json:"name"`
		Queue struct {
			Depth int `json:"depth"`
		} `json:"queue"`
		Reflector struct {
			Lists, ListPages, Relists, Watches, WatchEvents, Bookmarks, Errors uint64
			ListStreamed                                                       bool
		} `json:"reflector"`
		Server struct {
			ListsFromStorage, WatchLists, TerminatedWatchers uint64
		} `json:"server"`
		Listeners []struct {
			Name            string `json:"name"`
			Pending         int    `json:"pending"`
			Delivered       uint64 `json:"delivered"`
			DeliveredByType struct {
				Add, Update, Delete, Sync, Tombstones uint64
			} `json:"deliveredByType"`
			Synced         bool   `json:"synced"`
			Stalled        bool   `json:"stalled"`
			Panics         uint64 `json:"panics"`
			CacheMutations uint64 `json:"cacheMutations"`
		} `json:"listeners"`
	} `json:"informers"`
}

// onceScenario runs --once --json on a demo scenario sped up by scale (its
// script waits on conditions, not on time, so only the pauses shrink).
func onceScenario(t *testing.T, cfg demo.Config) scenarioReport {
	t.Helper()
	d, err := demo.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := newOptions()
	o.once, o.json, o.timeout = true, true, time.Minute
	// The bound only keeps a broken script from hanging the test binary.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	if code := runOnce(ctx, d, o, &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	var r scenarioReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if r.Scenario != cfg.Scenario || !r.ScriptEnded || r.Paused || r.PausedBy != "" {
		t.Errorf("scenario %q, script ended %t, paused %t by %q; want %s's ended, running", r.Scenario, r.ScriptEnded, r.Paused, r.PausedBy, cfg.Scenario)
	}
	if len(r.Notes) == 0 || r.Notes[0].Step != "" || r.Notes[len(r.Notes)-1].Step != r.Step {
		t.Errorf("notes %+v: want the summary first and the last step's (%s) last", r.Notes, r.Step)
	}
	return r
}

// noteSteps are the steps whose notes the report holds, in order.
func (r scenarioReport) noteSteps() []string {
	var out []string
	for _, n := range r.Notes[1:] {
		out = append(out, n.Step)
	}
	return out
}

// --once --json of expired waits for its end and carries its lesson: the
// relist after 410 Gone told each listener of the five pods deleted while
// the watch was down as tombstones, and of every unchanged pod as a sync.
func TestOnceScenarioExpired(t *testing.T) {
	r := onceScenario(t, demo.Config{Scenario: "expired", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	if got, want := r.noteSteps(), []string{"intro", "quiesce", "server down", "delete while down", "server up", "gone", "relisted", "done"}; !slices.Equal(got, want) {
		t.Errorf("notes of steps %v, want %v", got, want)
	}
	inf := r.Informers[0]
	if inf.Reflector.Lists != 2 || inf.Reflector.Relists != 1 || inf.Server.ListsFromStorage+inf.Server.WatchLists != inf.Reflector.Lists {
		t.Errorf("reflector %+v, server %+v: want 2 lists (one relist), each counted by the server", inf.Reflector, inf.Server)
	}
	// The churn goes on after the script's end, so a listener may owe a
	// change or two when the report is taken; the relist's tombstones and
	// syncs are all delivered by then (the relisted step waits for them).
	sync := inf.Listeners[0].DeliveredByType.Sync
	for _, l := range inf.Listeners {
		d := l.DeliveredByType
		if d.Tombstones != 5 || d.Sync == 0 || d.Sync != sync || l.Delivered != d.Add+d.Update+d.Delete+d.Sync {
			t.Errorf("listener %s: %+v, delivered %d; want 5 tombstones and the relist's syncs, like the others", l.Name, d, l.Delivered)
		}
	}
}

// burst's report is taken once every listener caught up, with processing
// running again: no held queue is reported as a backlog.
func TestOnceScenarioBurst(t *testing.T) {
	r := onceScenario(t, demo.Config{Scenario: "burst", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	if got, want := r.noteSteps(), []string{"intro", "pause processing", "burst", "resume processing", "drained"}; !slices.Equal(got, want) {
		t.Errorf("notes of steps %v, want %v", got, want)
	}
	inf := r.Informers[0]
	if inf.Queue.Depth != 0 {
		t.Errorf("queue depth %d after the script drained it", inf.Queue.Depth)
	}
	for _, l := range inf.Listeners {
		if l.Pending != 0 || l.DeliveredByType.Update < 1000 || l.Delivered != inf.Listeners[0].Delivered {
			t.Errorf("listener %s: pending %d, %+v; want the 1,000 updates delivered, as many as every listener", l.Name, l.Pending, l.DeliveredByType)
		}
	}
}

// bookmarks: quiet had no watch event, only bookmarks, counted apart;
// quiet-no-bookmarks had neither and listed again.
func TestOnceScenarioBookmarks(t *testing.T) {
	r := onceScenario(t, demo.Config{Scenario: "bookmarks", Seed: 5, Objects: 40, Rate: 100, TimeScale: 0.01})
	byName := map[string]int{}
	for i, inf := range r.Informers {
		byName[inf.Name] = i
	}
	quiet, nobm := r.Informers[byName["quiet"]].Reflector, r.Informers[byName["quiet-no-bookmarks"]].Reflector
	if quiet.WatchEvents != 0 || quiet.Bookmarks == 0 || quiet.Relists != 0 {
		t.Errorf("quiet: %+v; want bookmarks only, no watch event, no relist", quiet)
	}
	if nobm.WatchEvents != 0 || nobm.Bookmarks != 0 || nobm.Relists != 1 {
		t.Errorf("quiet-no-bookmarks: %+v; want no event or bookmark, one relist", nobm)
	}
}
