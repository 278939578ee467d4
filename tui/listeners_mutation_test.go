package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// A handler that changed cached objects shows the count in view 3's MUT
// column (when there is room; 80 columns keep the keys instead), and its
// drill-in names the last object, the callback and the fields changed.
func TestListenersShowCacheMutations(t *testing.T) {
	cfg := fixtureConfig()
	for i := range cfg.Frames {
		l := &cfg.Frames[i][0].Listeners[0] // fast
		l.CacheMutations = 3
		l.LastCacheMutation = &source.CacheMutation{Time: t0.Add(-5 * time.Second), Callback: source.CallbackUpdate,
			Key: "default/web-4", Fields: []string{`metadata.labels.touched: "" → "yes"`, `spec.nodeName: "n1" → "n2"`}}
	}
	h := newHarness(t, newControlledSource(cfg, newFixtureSource().ctl))
	h.size(160, 48)
	h.frames(fixtureFrames)
	h.keys("3")
	if got := rowFields(h.screen(), "fast"); len(got) < 14 || got[13] != "3" {
		t.Fatalf("view 3 does not count fast's cache mutations in MUT: %q\n%s", got, h.screen())
	}
	if got := rowFields(h.screen(), "slow"); len(got) < 14 || got[13] != "0" {
		t.Fatalf("slow's MUT is %q, want 0\n%s", got, h.screen())
	}
	h.keys("j", "enter")
	assertLinesInOrder(t, h.screen(), []string{
		"listener fast",
		"cache writes   3: the handler changed cached objects instead of DeepCopies",
		"last write     OnUpdate default/web-4, 14s ago",
		`               metadata.labels.touched: "" → "yes"`,
		`               spec.nodeName: "n1" → "n2"`,
	})
	h.keys("esc")
	h.size(80, 24)
	if strings.Contains(h.screen(), "MUT") {
		t.Errorf("at 80 columns MUT should give way to the other columns:\n%s", h.screen())
	}
}
