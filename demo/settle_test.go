package demo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// A note saying every listener has caught up stays true while it stands:
// the script holds the background churn from the moment it is shown until
// the next note replaces it, and says so.
func TestCaughtUpNoteHoldsTheChurnWhileItStands(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"burst", "stalled-listener", "fifo-compare"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDemo(t, Config{Scenario: name, Seed: 4, Objects: 40, TimeScale: 0.001})
			g := holdSteps(d, "loop")
			start(t, d)
			g.await(t, "loop")
			notes := d.Notes()
			if !slices.Contains(notes, settledNote) {
				t.Fatalf("the caught-up note does not say the churn is held: %q", notes)
			}
			if !d.work.held() {
				t.Fatal("the background churn runs while the caught-up note stands")
			}
			if !drained(d) || !sameDeliveries(d) {
				t.Error("the listeners are not caught up while the note says they are")
			}
			g.let("loop")
			waitfor.Seen(t, "the churn resuming with the next note", func() (bool, string) {
				notes := d.Notes()
				if slices.Contains(notes, settledNote) {
					return false, "the caught-up note still stands"
				}
				if d.work.held() {
					return false, fmt.Sprintf("the churn is still held under %q", strings.Join(notes, " "))
				}
				return true, ""
			})
		})
	}
}
