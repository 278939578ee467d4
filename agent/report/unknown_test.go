package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// unknownPair is the same informer twice, one process each: client-go's
// own (its queue and buffers unknown) and informtop's engine (known, 3
// queued, a buffer of 8).
func unknownPair(now time.Time) source.Frame {
	inf := func(name, impl string) source.Informer {
		return source.Informer{Name: name, Resource: "pods", Implementation: impl, Synced: true, Started: true, Taken: now,
			Queue:     source.Queue{Depth: 3},
			Reflector: source.Reflector{WatchOpen: true, LastHeard: now, LastEventTime: now},
			Listeners: []source.Listener{{Name: "h", Synced: true, Capacity: 8}}}
	}
	cg, eng := inf("c · a:1 · pods", source.ImplementationClientGo), inf("c · b:1 · pods", source.ImplementationEngine)
	cg.Queue.Depth, cg.Listeners[0].Capacity = 0, 0 // what the agent fills: nothing
	return source.Frame{Snapshots: []source.Informer{cg, eng}, Processes: []source.Process{
		{Job: "c", Instance: "a:1", Up: true, Informers: []string{cg.Name}},
		{Job: "c", Instance: "b:1", Up: true, Informers: []string{eng.Name}},
	}, Status: source.Status{State: source.Live}}
}

// jsonInformers reads the informers of a report's or fleet's JSON.
func jsonInformers(t *testing.T, js []byte) map[string]map[string]any {
	t.Helper()
	var back struct {
		Informers []map[string]any `json:"informers"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, inf := range back.Informers {
		out[inf["name"].(string)] = inf
	}
	return out
}

// A figure the agent cannot know about client-go's own informer — its
// queue, its listeners' buffer capacity — is null in the JSON with why
// under "unknown", in an attach's report and in the fleet's alike, never
// a 0 that reads as measured; the engine's figures stay numbers.
func TestClientGoUnknownFiguresAreNullNotZero(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := unknownPair(now)
	var attach, fleet bytes.Buffer
	if err := WriteJSON(&attach, Build("attach", f.Snapshots, nil, source.RingStats{}, nil, now)); err != nil {
		t.Fatal(err)
	}
	if err := WriteFleetJSON(&fleet, BuildFleet(f, now)); err != nil {
		t.Fatal(err)
	}
	for src, js := range map[string][]byte{"attach": attach.Bytes(), "fleet": fleet.Bytes()} {
		infs := jsonInformers(t, js)
		cg, eng := infs["c · a:1 · pods"], infs["c · b:1 · pods"]
		if cg == nil || eng == nil {
			t.Fatalf("%s: informers %v", src, infs)
		}
		cgL := cg["listeners"].([]any)[0].(map[string]any)
		unknown, _ := cg["unknown"].(map[string]any)
		lUnknown, _ := cgL["unknown"].(map[string]any)
		if v, ok := cg["queue"]; !ok || v != nil || unknown["queue"] == nil {
			t.Errorf("%s: client-go's queue %v (unknown %v); want null with why", src, v, unknown)
		}
		if v, ok := cgL["capacity"]; !ok || v != nil || lUnknown["capacity"] == nil {
			t.Errorf("%s: client-go's listener capacity %v (unknown %v); want null with why", src, v, lUnknown)
		}
		if cgL["pending"] == nil || cg["store"] == nil || cg["reflector"] == nil {
			t.Errorf("%s: client-go's known figures went null too: %v", src, cg)
		}
		engL := eng["listeners"].([]any)[0].(map[string]any)
		if q, _ := eng["queue"].(map[string]any); q["depth"] != 3.0 || engL["capacity"] != 8.0 || eng["unknown"] != nil {
			t.Errorf("%s: the engine's informer %v; want depth 3, capacity 8, nothing unknown", src, eng)
		}
	}
}

// The text report says what it cannot see of client-go's own informer
// rather than print 0: the queue is not visible, the capacity unknown.
func TestClientGoUnknownFiguresReadAsUnknown(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f := unknownPair(now)
	var tb bytes.Buffer
	if err := WriteTable(&tb, Build("attach", f.Snapshots, nil, source.RingStats{}, nil, now)); err != nil {
		t.Fatal(err)
	}
	cg, eng, _ := strings.Cut(tb.String(), "c · b:1 · pods")
	if !strings.Contains(cg, "queue: client-go's own, not visible from outside the informer") || strings.Contains(cg, "depth") ||
		!listenerRow(cg, "h", "unknown") || strings.Contains(cg, "goroutine dumps") {
		t.Errorf("client-go's informer:\n%s", cg)
	}
	if !strings.Contains(eng, "queue: depth 3") || !listenerRow(eng, "h", "8") {
		t.Errorf("the engine's informer:\n%s", eng)
	}
}

// listenerRow reports whether the listener table in text has the row of
// listener name with capacity as its third column.
func listenerRow(text, name, capacity string) bool {
	for line := range strings.Lines(text) {
		if f := strings.Fields(line); len(f) > 2 && f[0] == name {
			return f[2] == capacity
		}
	}
	return false
}
