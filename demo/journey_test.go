package demo

import (
	"fmt"
	"testing"

	"github.com/informtop/informtop/engine"
)

// An item the reflector listed did not come through the watch path, and
// the narration says so instead of inventing a journey.
func TestStepOfAListedItemSaysItWasListed(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Scenario: "stalled-listener", Seed: 11, Queue: engine.DeltaFIFO, Objects: 5, Rate: -1, TimeScale: 0.01})
	mustOK(t, d.SetPaused(true))
	start(t, d)
	eventually(t, "the listed pods queued", func() (bool, string) {
		s := snapshotOf(t, d, "pods")
		return s.Queue.Depth >= 4, fmt.Sprintf("depth %d", s.Queue.Depth)
	})
	step, err := d.Step("pods")
	mustOK(t, err)
	if step.Empty {
		// The pop already waiting when the pause came took the first one.
		step, err = d.Step("pods")
		mustOK(t, err)
	}
	assertJourney(t, step.Journey, []string{"listed by the reflector's LIST"})
	if len(step.Journey) != 1 {
		t.Errorf("a listed item's journey has %d lines: %q", len(step.Journey), step.Journey)
	}
	mustOK(t, d.SetPaused(false))
}
