package demo

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/demo/cluster"
)

// A rate above MaxRate is refused at New and clamped by SetRate, so the
// workload never owes more than the demo can apply.
func TestRateIsBounded(t *testing.T) {
	t.Parallel()
	for _, rate := range []float64{MaxRate + 1, 1e9, 1e12} {
		if _, err := New(Config{Rate: rate}); err == nil || !strings.Contains(err.Error(), "maximum of 5000 changes per second") {
			t.Errorf("New with rate %g: %v, want the maximum named", rate, err)
		}
	}
	d := newDemo(t, Config{Seed: 11, Rate: MaxRate, Objects: 5})
	if d.Rate() != MaxRate {
		t.Fatalf("rate %v, want MaxRate", d.Rate())
	}
	d.SetRate(1e12)
	if d.Rate() != MaxRate {
		t.Fatalf("SetRate(1e12) left rate %v, want MaxRate %v", d.Rate(), float64(MaxRate))
	}
	if rateLadder[len(rateLadder)-1] != MaxRate {
		t.Fatalf("the + key's ladder tops out at %v, not MaxRate", rateLadder[len(rateLadder)-1])
	}
}

// The driver applies whatever it owes in batches and stops between them
// when its context ends: a huge debt cannot hold the process past
// cancellation (it did when one Step applied a second's worth at 1e9/s).
func TestDriverApplyYieldsToCancellation(t *testing.T) {
	t.Parallel()
	c := cluster.New(cluster.Options{Seed: 1})
	if err := c.Populate(cluster.Pods, 10); err != nil {
		t.Fatal(err)
	}
	w := cluster.NewWorkload(c, cluster.WorkloadOptions{Seed: 1, MaxObjects: 20})
	dr := newDriver(w, MaxRate)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		dr.apply(ctx, math.MaxInt) // owed forever, were it not for ctx
	}()
	waitfor.Seen(t, "changes applied", func() (bool, string) {
		s := w.Stats()
		return s.Creates+s.Updates+s.Deletes >= 2*applyBatch, "fewer than two batches"
	})
	cancel()
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatalf("apply did not return within %v of its context ending", testTimeout)
	}
}

// A hold taken while the driver owes changes stops it at the next batch.
func TestDriverApplyStopsAtHold(t *testing.T) {
	t.Parallel()
	c := cluster.New(cluster.Options{Seed: 1})
	if err := c.Populate(cluster.Pods, 10); err != nil {
		t.Fatal(err)
	}
	w := cluster.NewWorkload(c, cluster.WorkloadOptions{Seed: 1, MaxObjects: 20})
	dr := newDriver(w, MaxRate)
	done := make(chan struct{})
	go func() {
		defer close(done)
		dr.apply(context.Background(), math.MaxInt)
	}()
	waitfor.Seen(t, "changes applied", func() (bool, string) {
		s := w.Stats()
		return s.Creates+s.Updates+s.Deletes > 0, "no change yet"
	})
	dr.hold()
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatalf("apply did not return within %v of a hold", testTimeout)
	}
}

// A demo at MaxRate stops promptly when its context ends.
func TestDemoAtMaxRateStopsOnCancel(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Seed: 2, Rate: MaxRate, Objects: 20, TimeScale: 0.01})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	before := changes(d)
	waitfor.Seen(t, "the workload running", func() (bool, string) { return changes(d) > before+applyBatch, "no changes yet" })
	cancel()
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatalf("Run did not return within %v of its context ending", testTimeout)
	}
}

// + at the top of the ladder stays at MaxRate and says it is the maximum.
func TestAdjustRateAtMaximum(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Seed: 11, Rate: -1, Objects: 5})
	d.SetRate(2000)
	if got, err := d.AdjustRate(+1); got != MaxRate || err != nil {
		t.Fatalf("one rung above 2000: %v, %v; want MaxRate", got, err)
	}
	got, err := d.AdjustRate(+1)
	if got != MaxRate || !errors.Is(err, errAtMaxRate) || !strings.Contains(err.Error(), "the workload is at its maximum, 5,000 changes/s") {
		t.Fatalf("+ at the maximum: %v, %v", got, err)
	}
	if got, err := d.AdjustRate(-1); got != 2000 || err != nil {
		t.Fatalf("- from the maximum: %v, %v; want 2000", got, err)
	}
}

// While the workload sends pods more than slow (20ms a callback) can take,
// the notes say so right after the headline; at the default rate they do
// not.
func TestRateWarningNamesTheHandlersLeftBehind(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Seed: 3, Rate: -1, Objects: 5})
	if w := d.rateWarning(); w != "" {
		t.Fatalf("no workload, warning %q", w)
	}
	d.SetRate(defaultRate)
	if w := d.rateWarning(); w != "" {
		t.Fatalf("at the default rate: %q", w)
	}
	d.SetRate(MaxRate) // steady spreads it over four resources
	want := "medium and slow cannot keep up with 5,000 changes/s (pods gets ~1,250/s, they take 500/s and 50/s): their backlogs and memory grow without bound, like client-go's; - slows down"
	if w := d.rateWarning(); !strings.Contains(w, want) {
		t.Fatalf("warning %q, want %q", w, want)
	}
	d.SetRate(300)
	want = "slow cannot keep up with 300 changes/s (pods gets ~75/s, it takes 50/s): its backlog and memory grow without bound"
	if w := d.rateWarning(); !strings.Contains(w, want) {
		t.Fatalf("warning %q, want %q", w, want)
	}

	start(t, d)
	ctxWait(t, d)
	// The warning stands after the note's own lines and before the status
	// lines under them ("pods · fast: …"), which give way first.
	notes := d.Notes()
	warning := slices.IndexFunc(notes, func(n string) bool { return strings.Contains(n, want) })
	status := slices.IndexFunc(notes, func(n string) bool { return strings.HasPrefix(n, "pods · ") })
	if warning < 1 || (status >= 0 && status < warning) {
		t.Fatalf("notes %q lack the warning between the note and its status lines", notes)
	}
	d.SetRate(defaultRate)
	for _, n := range d.Notes() {
		if strings.Contains(n, "without bound") {
			t.Fatalf("the warning outlived the rate: %q", n)
		}
	}

	// A scaled-down scenario's handlers are fast enough for any rate.
	fast := newDemo(t, Config{Seed: 3, Rate: MaxRate, Objects: 5, TimeScale: 0.002})
	if w := fast.rateWarning(); w != "" {
		t.Fatalf("handlers at 40µs a callback: %q", w)
	}
}
