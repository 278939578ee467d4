package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// journeyStep is fixtureStep as the demo reports it: the popped update's
// resourceVersion and how it travelled the API server.
func journeyStep() source.StepResult {
	r := fixtureStep
	r.ResourceVersions = []string{"49447"}
	r.Journey = []string{
		"etcd revision 49447",
		"storage watcher decoded it (incoming 3/100)",
		"watch cache appended it (window 48448–49447)",
		"dispatched to 2 watchers",
		"reflector received MODIFIED default/web-3",
	}
	return r
}

// journeyFixture is the server fixture whose step pops journeyStep.
func journeyFixture(t testing.TB, w, ht int) *harness {
	h := serverFixture(t, w, ht)
	h.ctl.SetStepResult(journeyStep())
	return h
}

// A step narrates one write from etcd to the handlers: the server's
// stages first, in order, then the pop, the store and the listeners.
func TestGoldenStepJourney(t *testing.T) {
	for _, sz := range goldenSizes {
		name := fmt.Sprintf("step-journey-%dx%d", sz[0], sz[1])
		t.Run(name, func(t *testing.T) {
			h := journeyFixture(t, sz[0], sz[1])
			h.keys("n")
			got := h.screen()
			assertFits(t, got, sz[0], sz[1])
			if sz[1] >= 48 {
				// Room for a line per stage.
				containsInOrder(t, got, "server   etcd revision 49447", "storage watcher decoded it (incoming 3/100)",
					"watch cache appended it (window 48448–49447)", "dispatched to 2 watchers",
					"reflector received MODIFIED default/web-3", "popped   default/web-3 with Updated at RV 49447",
					"store    Update default/web-3", "notified fast", "late  ← OnAdd")
			} else {
				// Short of rows: the stages run on, and every listener
				// notified still shows.
				containsInOrder(t, got, "server   etcd revision 49447 → storage watcher decoded it (incoming 3/100) →",
					"watch cache appended it (window 48448–49447) → dispatched to 2", "reflector received MODIFIED default/web-3",
					"popped   default/web-3 with Updated at RV 49447", "store    Update default/web-3",
					"notified fast", "slow", "audit", "late  ← OnAdd")
			}
			golden(t, name, got)
		})
	}
}

// Without a journey (a real cluster, or a source that does not run the
// server) the panel has no server lines; the step-narration goldens pin
// the rest.
func TestStepWithoutJourneyHasNoServerLine(t *testing.T) {
	h := serverFixture(t, 160, 48)
	h.keys("n")
	if strings.Contains(h.screen(), "server   ") {
		t.Fatalf("a step without a journey narrates the server:\n%s", h.screen())
	}
}

// A long journey on a narrow panel is cut at a few lines, saying so, and
// never wider than the panel.
func TestJourneyCappedWhenRunOn(t *testing.T) {
	h := fixture(t, 80, 24)
	r := journeyStep()
	for i := 0; i < 20; i++ {
		r.Journey = append(r.Journey, "dispatched to watcher "+fmt.Sprint(i))
	}
	h.ctl.SetStepResult(r)
	h.keys("n")
	got := h.screen()
	assertFits(t, got, 80, 24)
	var journey []string
	for _, l := range strings.Split(got, "\n") {
		if strings.Contains(l, "→") {
			journey = append(journey, l)
		}
	}
	if n := len(journey); n != journeyMaxLines || !strings.Contains(journey[n-1], "…") {
		t.Fatalf("journey on %d lines, want %d ending in …:\n%s", len(journey), journeyMaxLines, got)
	}
}
