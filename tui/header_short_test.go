package tui

import (
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// shortTitled is an attach through the API server as the header sees it:
// a long title and a short one.
type shortTitled struct {
	*sourcetest.Fake
}

func (shortTitled) ShortTitle() string { return "orders-controller-7d9f-x2x" }

// At 80 columns an attach through the API server still names its pod in
// the header: its long title (workload, port, route, process) gives way
// to the short one before only the kind is left; at 160 the long one is
// whole.
func TestHeaderNamesThePodAt80Columns(t *testing.T) {
	long := "shop/orders-controller-7d9f-x2x (deploy/orders-controller):8443 via API server · controller-runtime-manager"
	for _, tc := range []struct {
		width int
		want  string
	}{
		{80, "attach: orders-controller-7d9f-x2x │ informers 1/1 synced │ handlers"},
		{160, "attach: " + long},
	} {
		fake := sourcetest.New(sourcetest.Config{Kind: "attach", Title: long,
			Frames: [][]source.Informer{{{Name: "configmaps", Resource: "configmaps", Taken: t0, Synced: true}}},
			Status: source.Status{State: source.Live}})
		h := newHarness(t, shortTitled{fake})
		h.size(tc.width, 24)
		h.frames(1)
		if lines := strings.Split(h.screen(), "\n"); len(lines) < 2 || !strings.Contains(lines[1], tc.want) {
			t.Errorf("at %d columns the header's second line is %q; want it to hold %q", tc.width, lines[1], tc.want)
		}
	}
}
