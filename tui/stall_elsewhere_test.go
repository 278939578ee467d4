package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// The sample-controller case: attached to a controller with two
// client-go informers, the dashboard opens on the first (deployments,
// its handler healthy) while the second's handler (foos) is stuck in
// user code with thousands of notifications behind it.

// sampleHandler is how the agent names sample-controller's handlers.
const sampleHandler = "main.(*Controller)"

const foos = "foos.samplecontroller.k8s.io"

func sampleControllerSource() *sourcetest.Fake {
	cfg := sourcetest.Config{Kind: "attach", Title: "127.0.0.1:6060"}
	frame := source.StackFrame{Function: "main.(*Controller).enqueueFoo", File: "/src/sample-controller/controller.go", Line: 183}
	for i := range fixtureFrames {
		t := t0.Add(time.Duration(i) * time.Second)
		deployments := clientGoSnapshot(i, t)
		deployments.Name, deployments.Resource = "deployments.apps", "deployments.apps"
		deployments.Listeners = []source.Listener{{Name: sampleHandler, PendingEstimated: true, HighWater: 3, Synced: true,
			Delivered: source.Delivered{Add: 2000, Update: 40 + uint64(i)}, LatencyP50: 80 * time.Microsecond, LatencyP99: 400 * time.Microsecond}}
		stuck := clientGoSnapshot(i, t)
		stuck.Name, stuck.Resource = foos, foos
		stuck.Store.Objects = 2000
		stuck.Listeners = []source.Listener{{Name: sampleHandler, Pending: 4300 + i, PendingEstimated: true, HighWater: 4300 + i, Synced: true,
			Delivered:  source.Delivered{Add: 2000, Update: 12},
			InCallback: source.CallbackUpdate, InCallbackKey: "default/foo-17", InCallbackSince: t0.Add(-70 * time.Second),
			OldestPendingSince: t0.Add(-70 * time.Second), Frame: &frame, RequestedResync: 30 * time.Second, ResyncPeriod: 30 * time.Second}}
		cfg.Frames = append(cfg.Frames, []source.Informer{deployments, stuck})
	}
	return sourcetest.New(cfg)
}

// The first screen and the informer picker name the stalled handler of
// the informer not shown, at 80×24 and 160×48.
func TestStallElsewhereGoldenScreens(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{{"stall-elsewhere-pipeline", nil}, {"stall-elsewhere-switcher", []string{":"}}} {
		for _, sz := range goldenSizes {
			name := fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, sampleControllerSource())
				h.size(sz[0], sz[1])
				h.frames(fixtureFrames)
				h.keys(tc.keys...)
				got := h.screen()
				assertFits(t, got, sz[0], sz[1])
				golden(t, name, got)
			})
		}
	}
}

// What the header's second line and the picker say of it, at every width
// from 80 columns: the stalled handler and its informer, though the
// informer shown is healthy; none of it once the handler returns.
func TestHeaderAndPickerNameAStallOnAnotherInformer(t *testing.T) {
	for _, w := range []int{80, 100, 120, 160, 200} {
		h := newHarness(t, sampleControllerSource())
		h.size(w, 30)
		h.frames(fixtureFrames)
		if cur := h.m.c.data.current; cur != "deployments.apps" {
			t.Fatalf("the dashboard opens on %q; want deployments.apps, the healthy one", cur)
		}
		line := strings.Split(h.screen(), "\n")[1]
		if !strings.Contains(line, "⚠ stalled: foos.") || !strings.Contains(line, "› "+sampleHandler) {
			t.Errorf("header line 2 at %d columns: %q; want the stalled %s on foos named", w, line, sampleHandler)
		}
		h.keys(":")
		picker := h.screen()
		var row string
		for l := range strings.SplitSeq(picker, "\n") {
			if strings.Contains(l, " foos.samplecontroller") {
				row = l
			}
		}
		if !strings.Contains(row, "⚠ foos.samplecontroller") || !strings.Contains(row, "stalled: "+sampleHandler) {
			t.Errorf("picker at %d columns, foos's row %q; want ⚠ and the stalled handler named:\n%s", w, row, picker)
		}
		if strings.Contains(picker, "✓ foos") {
			t.Errorf("picker at %d columns marks foos ✓:\n%s", w, picker)
		}
	}

	// The handler returned: nothing stalled is said.
	src := sampleControllerSource()
	var healthy [][]source.Informer
	for range fixtureFrames {
		f := src.Pull(0, 0).Snapshots
		l := &f[1].Listeners[0]
		l.InCallback, l.InCallbackKey, l.InCallbackSince, l.Frame, l.Pending = "", "", time.Time{}, nil, 0
		healthy = append(healthy, f)
		src.Advance()
	}
	src.SetFrames(healthy)
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys(":")
	if screen := h.screen(); strings.Contains(screen, "stalled") || !strings.Contains(screen, "✓ foos") {
		t.Errorf("with the handler back, the header or picker still says stalled:\n%s", screen)
	}
}
