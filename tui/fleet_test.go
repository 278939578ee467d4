package tui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// fleetInformer is one informer of a fleet, named after its process as
// the fleet source names them.
func fleetInformer(process, name string, synced bool, ls ...source.Listener) source.Informer {
	return source.Informer{Name: process + " · " + name, Resource: name, Group: "apps", Version: "v1", Taken: t0, Started: true, Synced: synced,
		Store: source.Cache{Objects: 20}, Listeners: ls,
		Reflector: source.Reflector{WatchOpen: true, LastHeard: t0.Add(-2 * time.Second), LastEventTime: t0.Add(-2 * time.Second)}}
}

// newFleetSource is a fleet of four: one with a handler stuck in the
// user's code, one behind, one Prometheus cannot scrape, one fine. The
// processes come in name order; the dashboard ranks them.
func newFleetSource() source.Source {
	stuck := source.Listener{Name: "main.(*Controller)", Pending: 19, PendingEstimated: true, Capacity: 1024,
		InCallback: source.CallbackUnknown, InCallbackSince: t0.Add(-42 * time.Second), OldestPendingSince: t0.Add(-44 * time.Second),
		Frame: &source.StackFrame{Function: "main.(*Controller).misbehave", File: "main.go", Line: 266}}
	behind := source.Listener{Name: "reconciler", Pending: 350, PendingEstimated: true, Capacity: 512, Synced: true,
		OldestPendingSince: t0.Add(-9 * time.Second)}
	fine := source.Listener{Name: "reconciler", Synced: true, Capacity: 1024}
	snaps := []source.Informer{
		fleetInformer("shop/gadgets-5c2a", "deployments", true, behind),
		fleetInformer("shop/gadgets-5c2a", "pods", true, fine),
		fleetInformer("shop/ok-1", "configmaps", true, fine),
		fleetInformer("eu-west-1/shop/widgets-7d9f", "deployments", true, stuck),
		fleetInformer("us-east-1/shop/widgets-7d9f-x2x4q", "deployments", true, fine),
	}
	procs := []source.Process{
		{Job: "controllers", Instance: "10.0.0.3:6060", Up: false, Agent: "10.0.0.3:6060", Informers: []string{}},
		{Job: "controllers", Instance: "10.0.0.2:6060", Labels: map[string]string{"namespace": "shop", "pod": "gadgets-5c2a"}, Up: true,
			Agent: "10.0.0.2:6060", Informers: []string{"shop/gadgets-5c2a · deployments", "shop/gadgets-5c2a · pods"}},
		{Job: "controllers", Instance: "10.0.0.4:6060", Labels: map[string]string{"namespace": "shop", "pod": "ok-1"}, Up: true,
			Informers: []string{"shop/ok-1 · configmaps"}},
		// The same pod in two clusters: two processes, named apart.
		{Job: "controllers", Instance: "10.0.0.1:6060", Cluster: "eu-west-1", Labels: map[string]string{"cluster": "eu-west-1", "namespace": "shop", "pod": "widgets-7d9f"}, Up: true,
			Agent: "10.0.0.1:6060", Informers: []string{"eu-west-1/shop/widgets-7d9f · deployments"}},
		{Job: "controllers", Instance: "10.0.0.1:6060", Cluster: "us-east-1", Labels: map[string]string{"cluster": "us-east-1", "namespace": "shop", "pod": "widgets-7d9f-x2x4q"}, Up: true,
			Agent: "10.0.0.1:6060", Informers: []string{"us-east-1/shop/widgets-7d9f-x2x4q · deployments"}},
	}
	fake := sourcetest.New(sourcetest.Config{Kind: "fleet", Title: "http://prometheus:9090", Frames: [][]source.Informer{snaps},
		Status: source.Status{State: source.Live}})
	return source.Decorate(fake, source.Decoration{Frame: func(f source.Frame) source.Frame {
		f.Processes = source.CloneProcesses(procs)
		f.Taken = t0
		return f
	}})
}

func fleetFixture(t *testing.T, w, h int) *harness {
	t.Helper()
	hs := newHarness(t, newFleetSource())
	hs.size(w, h)
	hs.frames(1)
	return hs
}

// fleetSizes are the sizes the fleet view is drawn at: the narrowest
// terminal, the width from which AGENT shows and WORST keeps the informer
// and listener, and a large one.
var fleetSizes = [][2]int{{80, 24}, {120, 30}, {160, 48}}

// The fleet opens on its processes worst first: the one Prometheus cannot
// scrape, the stuck handler with its frame, the backlog, the healthy. A
// pod in two clusters is two processes named by their cluster; a name too
// long for its column (28 cells below 140 columns) keeps its start and,
// for a pod, the last part of the pod's name; from 120 columns WORST names
// the informer and the listener.
func TestFleetViewListsProcessesWorstFirst(t *testing.T) {
	for _, sz := range fleetSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := fleetFixture(t, sz[0], sz[1])
			got := h.screen()
			assertFits(t, got, sz[0], sz[1])
			golden(t, fmt.Sprintf("fleet-%dx%d", sz[0], sz[1]), got)
			got = got[strings.Index(got, "PROCESS"):]
			rows := strings.Split(got, "\n")[1:6]
			if sz[0] < 140 && !strings.Contains(rows[4], "…") {
				t.Errorf("the longest name %q fits at %d columns: the fixture no longer checks the cut", rows[4], sz[0])
			}
			for i, want := range []struct{ name, state string }{
				{"controllers · 10.0.0.3:6060", "down"}, {"eu-west-1/shop/widgets-7d9f", "stalled"},
				{"shop/gadgets-5c2a", "backlog"}, {"shop/ok-1", "ok"}, {"us-east-1/shop/widgets-7d9f-x2x4q", "ok"},
			} {
				at := strings.Index(rows[i], " "+want.state+" ")
				if at < 0 {
					t.Errorf("row %d is %q; want %s %s", i+1, rows[i], want.name, want.state)
					continue
				}
				// Whole, or its start, "…" and (a pod's) its last part.
				name := strings.TrimSpace(rows[i][:at])
				start, end, cut := strings.Cut(name, "…")
				if !strings.HasPrefix(want.name, start) || len(start) < 9 || !strings.HasSuffix(want.name, end) || (!cut && name != want.name) {
					t.Errorf("row %d is %q; want %s (whole, or its start, … and its pod's last part) %s", i+1, rows[i], want.name, want.state)
				}
			}
			for _, want := range []string{"≥350", "42s"} {
				if !strings.Contains(got, want) {
					t.Errorf("the fleet view lacks %q:\n%s", want, got)
				}
			}
			switch {
			case sz[0] >= 160:
				if !strings.Contains(got, "deployments · main.(*Controller) · 42s in misbehave (main.go:266)") {
					t.Errorf("the stalled process does not name its informer, listener and frame:\n%s", got)
				}
			case sz[0] >= 120:
				if !strings.Contains(rows[1], "deployments · main.(*Controller) · 42s") {
					t.Errorf("at %d columns WORST drops the informer or the listener: %q", sz[0], rows[1])
				}
			default:
				if !strings.Contains(rows[1], "42s in misbehave") {
					t.Errorf("at %d columns WORST drops the frame: %q", sz[0], rows[1])
				}
			}
		})
	}
}

// Two replicas of one Deployment differ only at the end of their pod's
// names: cut to fit PROCESS, each keeps its cluster, its namespace, the
// start of the pod's name and the last part that tells them apart, at
// every size.
func TestFleetViewTellsReplicasApart(t *testing.T) {
	const a, b = "orders-controller-7d9c5b6f4-x2x7q", "orders-controller-7d9c5b6f4-9k2lm"
	var snaps []source.Informer
	var procs []source.Process
	for i, pod := range []string{a, b} {
		name := "eu-west-1/shop/" + pod
		snaps = append(snaps, fleetInformer(name, "deployments", true, source.Listener{Name: "reconciler", Synced: true}))
		procs = append(procs, source.Process{Job: "orders", Instance: fmt.Sprintf("10.0.0.%d:6060", i+1), Cluster: "eu-west-1",
			Labels: map[string]string{"cluster": "eu-west-1", "namespace": "shop", "pod": pod}, Up: true, Informers: []string{name + " · deployments"}})
	}
	fake := sourcetest.New(sourcetest.Config{Kind: "fleet", Title: "http://prometheus:9090", Frames: [][]source.Informer{snaps},
		Status: source.Status{State: source.Live}})
	src := source.Decorate(fake, source.Decoration{Frame: func(f source.Frame) source.Frame {
		f.Processes = source.CloneProcesses(procs)
		f.Taken = t0
		return f
	}})
	for _, sz := range fleetSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := newHarness(t, src)
			h.size(sz[0], sz[1])
			h.frames(1)
			got := h.screen()
			assertFits(t, got, sz[0], sz[1])
			rows := strings.Split(got[strings.Index(got, "PROCESS"):], "\n")[1:3]
			names := map[string]bool{}
			for _, r := range rows {
				name := strings.TrimSpace(r[:strings.Index(r, " ok ")])
				names[name] = true
				if !strings.HasPrefix(name, "eu-west-1/shop/orders") || !(strings.HasSuffix(name, "-x2x7q") || strings.HasSuffix(name, "-9k2lm")) {
					t.Errorf("row %q: want the cluster, namespace, the pod's start and its last part", r)
				}
			}
			if len(names) != 2 {
				t.Errorf("the two replicas read the same:\n%s", strings.Join(rows, "\n"))
			}
		})
	}
}

// Enter on a process attaches to its agent through the hook; esc goes
// back to the fleet, stopping the attach; f and :fleet go back as well.
func TestFleetEnterAttachesAndEscGoesBack(t *testing.T) {
	h := fleetFixture(t, 160, 48)
	var asked []source.Process
	stopped := 0
	h.m.opts.Attach = func(_ context.Context, p source.Process) (source.Source, func(), error) {
		asked = append(asked, p)
		agent := sourcetest.New(sourcetest.Config{Kind: "attach", Title: p.Agent,
			Frames: [][]source.Informer{{{Name: "deployments", Resource: "deployments", Taken: t0, Synced: true}}}})
		return agent, func() { stopped++ }, nil
	}
	h.keys("j", "enter") // the first is down, the stalled one next
	if len(asked) != 1 || asked[0].Instance != "10.0.0.1:6060" || asked[0].Cluster != "eu-west-1" {
		t.Fatalf("enter on the stalled process attached to %+v, want 10.0.0.1:6060 in eu-west-1", asked)
	}
	h.frames(1)
	if got := h.screen(); !strings.Contains(got, "attach: 10.0.0.1:6060") || !strings.Contains(h.footer(), "esc or :fleet goes back") {
		t.Fatalf("after enter the dashboard does not show the agent:\n%s", got)
	}
	h.keys("esc")
	if stopped != 1 || !strings.Contains(h.screen(), "worst first") {
		t.Fatalf("esc: %d stops, screen:\n%s", stopped, h.screen())
	}
	// The fleet's cursor stayed where it was; j then enter opens the next.
	h.keys("j", "enter")
	if len(asked) != 2 || asked[1].Instance != "10.0.0.2:6060" {
		t.Fatalf("j enter attached to %+v, want 10.0.0.2:6060", asked)
	}
	h.keys(":", "f", "l", "e", "e", "t", "enter")
	if stopped != 2 || !strings.Contains(h.screen(), "worst first") {
		t.Fatalf(":fleet: %d stops, screen:\n%s", stopped, h.screen())
	}
	h.keys("1")
	if strings.Contains(h.screen(), "worst first") {
		t.Fatal("1 did not leave the fleet view")
	}
	h.keys("f")
	if !strings.Contains(h.screen(), "worst first") {
		t.Fatalf("f did not bring the fleet view back:\n%s", h.screen())
	}
}

// A process whose target labels hold no agent address is not attached
// to; the footer says which flag names the label.
func TestFleetEnterWithoutAgentSaysWhy(t *testing.T) {
	// ok-1 as a static target without namespace, pod or address.
	src := source.Decorate(newFleetSource(), source.Decoration{Frame: func(f source.Frame) source.Frame {
		for i := range f.Processes {
			if f.Processes[i].Labels["pod"] == "ok-1" {
				f.Processes[i].Labels = nil
			}
		}
		return f
	}})
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(1)
	h.m.opts.Attach = func(context.Context, source.Process) (source.Source, func(), error) {
		t.Fatal("attached to a process with no agent address")
		return nil, nil, nil
	}
	h.keys("G", "k", "enter") // ok-1, before the last
	if f := h.footer(); !strings.Contains(f, "neither its namespace and pod nor an agent address") || !strings.Contains(f, "--agent-label") {
		t.Fatalf("footer %q, want a sentence naming --agent-label", f)
	}
}

// A process whose target labels name its namespace and pod is reached
// through the API server, even without an agent address.
func TestFleetEnterOnAPodGoesThroughTheAPIServer(t *testing.T) {
	h := fleetFixture(t, 120, 30)
	var asked []source.Process
	h.m.opts.Attach = func(_ context.Context, p source.Process) (source.Source, func(), error) {
		asked = append(asked, p)
		return nil, nil, errors.New("the test refuses")
	}
	h.keys("G", "k", "enter") // ok-1, before the last
	if len(asked) != 1 || asked[0].Labels["pod"] != "ok-1" {
		t.Fatalf("G k enter asked %+v; want shop/ok-1, which has no agent address but a pod", asked)
	}
	if f := h.footer(); !strings.Contains(f, "could not attach to shop/ok-1") || !strings.Contains(f, "the test refuses") {
		t.Fatalf("footer %q, want the refusal", f)
	}
}

// :fleet on a source that is not a fleet says so instead of doing nothing.
func TestFleetCommandOnOtherSources(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys(":", "f", "l", "e", "e", "t", "enter")
	if f := h.footer(); !strings.Contains(f, "fleet") || strings.Contains(h.screen(), "worst first") {
		t.Fatalf("footer %q", f)
	}
}

// Prometheus' series hold figures only: the Pipeline shows what they say
// (no watch events, no last list, no queue flow, no index counts) and the
// Pipeline, Queue and Events views say where the rest is, at 80×24.
func TestFleetViewsSayWhatTheSeriesDoNotHold(t *testing.T) {
	oneLine := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	// From 120 columns a single process's view sets informers of one
	// resource side by side; a fleet's three deployments informers are
	// three processes', and their series hold none of those flows.
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		h := fleetFixture(t, size[0], size[1])
		for _, view := range []string{"1", "2", "5"} {
			h.keys(view)
			got := h.screen()
			assertFits(t, got, size[0], size[1])
			if !strings.Contains(oneLine(got), "Prometheus' series hold figures, not events or queued rows: enter on the Fleet view (f) attaches") {
				t.Errorf("%dx%d: view %s does not say what the series lack:\n%s", size[0], size[1], view, got)
			}
			// No series says which queue a process runs, or what flowed.
			for _, unknown := range []string{"RealFIFO", "DeltaFIFO", "one row per", "in 0/s", "0 deltas", "also on deployments"} {
				if strings.Contains(got, unknown) {
					t.Errorf("%dx%d: view %s shows %q, which no series holds:\n%s", size[0], size[1], view, unknown, got)
				}
			}
			if view == "2" && (strings.Contains(got, "KEY") || strings.Contains(got, "filter")) {
				t.Errorf("%dx%d: the Queue view offers rows no series holds:\n%s", size[0], size[1], got)
			}
			if view != "1" {
				continue
			}
			for _, unknown := range []string{"watch events", "RV -", "last 0 in", "added,", "0 added", "bookmark", "ev/s", "event 2"} {
				if strings.Contains(got, unknown) {
					t.Errorf("%dx%d: the Pipeline shows %q, which no series holds:\n%s", size[0], size[1], unknown, got)
				}
			}
		}
		// A listener's high-water mark, tombstones and resync periods
		// are not in the series either.
		h.keys("3")
		got := h.screen()
		for _, unknown := range []string{"high-water", "OnDelete with", "requested never", "RealFIFO"} {
			if strings.Contains(got, unknown) {
				t.Errorf("%dx%d: the Listeners view shows %q, which no series holds:\n%s", size[0], size[1], unknown, got)
			}
		}
		if size[0] >= 160 && (!strings.Contains(got, "not in the series") || !strings.Contains(got, "buffer capacity 1,024")) {
			t.Errorf("%dx%d: the listener's detail does not say what the series lack, or lost its capacity:\n%s", size[0], size[1], got)
		}
		// The Store view holds a count, not objects or indexes.
		h.keys("4")
		if got := h.screen(); strings.Contains(got, "indexes") || !strings.Contains(oneLine(got), "not the objects: enter on the Fleet view (f) attaches") {
			t.Errorf("%dx%d: the Store view claims indexes or does not say the series hold only a count:\n%s", size[0], size[1], got)
		}
		// Its keys for objects say why there are none, and open nothing.
		h.keys("i")
		if got := h.screen(); strings.Contains(strings.ToLower(got), "index") {
			t.Errorf("%dx%d: i on a fleet's Store opened its indexes:\n%s", size[0], size[1], got)
		}
		// The switcher names each informer's resource, and no queue kind
		// after a dangling separator.
		h.keys(":")
		if got := h.screen(); regexp.MustCompile(`deployments ·\s*│`).MatchString(got) || !strings.Contains(got, "shop/ok-1 · configmaps") {
			t.Errorf("%dx%d: the switcher:\n%s", size[0], size[1], got)
		}
		h.keys("esc")
	}
}
