package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// twoStallsFleet is a fleet in which two processes' handlers are stuck,
// the longer in eu-west-1/shop/widgets-7d9f's deployments.
func twoStallsFleet() source.Source {
	stuck := func(name string, since time.Duration) source.Listener {
		return source.Listener{Name: name, Pending: 3, PendingEstimated: true,
			InCallback: source.CallbackUnknown, InCallbackSince: t0.Add(-since), OldestPendingSince: t0.Add(-since)}
	}
	snaps := []source.Informer{
		fleetInformer("eu-west-1/shop/widgets-7d9f", "deployments", true, stuck("main.(*Controller)", 42*time.Second)),
		fleetInformer("us-east-1/shop/gadgets-5c2a", "configmaps", true, stuck("main.(*Reconciler)", 30*time.Second)),
	}
	procs := []source.Process{
		{Job: "controllers", Instance: "10.0.0.1:6060", Cluster: "eu-west-1", Labels: map[string]string{"namespace": "shop", "pod": "widgets-7d9f"}, Up: true,
			Informers: []string{snaps[0].Name}},
		{Job: "controllers", Instance: "10.0.0.2:6060", Cluster: "us-east-1", Labels: map[string]string{"namespace": "shop", "pod": "gadgets-5c2a"}, Up: true,
			Informers: []string{snaps[1].Name}},
	}
	fake := sourcetest.New(sourcetest.Config{Kind: "fleet", Title: "http://prometheus:9090", Frames: [][]source.Informer{snaps},
		Status: source.Status{State: source.Live}})
	return source.Decorate(fake, source.Decoration{Frame: func(f source.Frame) source.Frame {
		f.Processes = source.CloneProcesses(procs)
		f.Taken = t0
		return f
	}})
}

// The header's stall banner names the process and the handler whole
// where they fit (120 columns); narrower, it drops the informer, then cuts the
// process's end, one ellipsis at the end of that one part: never the
// middle of both names ("eu-we…eployments › main.…ontroller) +1").
func TestFleetStallBannerKeepsProcessAndHandler(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 30}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := newHarness(t, twoStallsFleet())
			h.size(sz[0], sz[1])
			h.frames(1)
			got := h.screen()
			assertFits(t, got, sz[0], sz[1])
			golden(t, fmt.Sprintf("fleet-stall-banner-%dx%d", sz[0], sz[1]), got)
			line := strings.Split(got, "\n")[1]
			_, banner, ok := strings.Cut(line, "⚠ stalled: ")
			if !ok {
				t.Fatalf("no stall banner in the header: %q", line)
			}
			switch {
			case sz[0] >= 120:
				if banner != "eu-west-1/shop/widgets-7d9f · deployments › main.(*Controller) (+1 more)" {
					t.Errorf("at %d columns the banner is %q; want every part whole", sz[0], banner)
				}
			default:
				process, handler, ok := strings.Cut(banner, " › ")
				if !ok || handler != "main.(*Controller) +1" {
					t.Errorf("at %d columns the banner is %q; want the handler whole, then +1", sz[0], banner)
				}
				if strings.Count(banner, "…") > 1 || !strings.HasPrefix("eu-west-1/shop/widgets-7d9f · deployments", strings.TrimSuffix(process, "…")) ||
					len(strings.TrimSuffix(process, "…")) < len("eu-west-1/s") {
					t.Errorf("at %d columns the banner is %q; want the process's start (its cluster at least), cut at its end if at all", sz[0], banner)
				}
			}
		})
	}
}
