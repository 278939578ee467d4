package demo

import (
	"context"
	"slices"
	"testing"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/waitfor"
)

func TestSteady(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Seed: 1, Objects: 60, Rate: 400, TimeScale: 0.002})
	g := holdSteps(d, "loop")
	notes := watchNotes(d, map[string]claim{"tour: pipeline": claimSynced})
	start(t, d)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := d.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	g.await(t, "loop")
	notes.check(t, "tour: pipeline", "tour: listeners", "tour: store", "tour: faults")
	// Let the churn run until a few hundred changes went through.
	waitfor.Seen(t, "churn", func() (bool, string) {
		w := d.work.w.Stats()
		n := w.Creates + w.Updates + w.Deletes
		return n >= 300, "changes so far: " + humanize.Count(n)
	})
	quiesce(t, d)
	assertConsistent(t, d)

	names := []string{"pods", "configmaps", "deployments.apps", "secrets"}
	var got []string
	for _, s := range d.States() {
		got = append(got, s.Name)
		if s.Reflector.Lists != 1 || s.Reflector.Relists != 0 {
			t.Errorf("%s: %d lists, %d relists; steady churn needs exactly one list", s.Name, s.Reflector.Lists, s.Reflector.Relists)
		}
		if !s.Synced {
			t.Errorf("%s not synced", s.Name)
		}
	}
	if !slices.Equal(got, names) {
		t.Errorf("informers %v, want %v", got, names)
	}
	// Nothing is lost: fast, medium and slow were told exactly the same.
	pods := snapshotOf(t, d, "pods")
	fast := listenerStats(t, pods, "fast").Delivered
	for _, name := range []string{"medium", "slow"} {
		if got := listenerStats(t, pods, name).Delivered; got != fast {
			t.Errorf("%s delivered %+v, fast %+v", name, got, fast)
		}
	}
	if fast.Update == 0 || fast.Add < 60 {
		t.Errorf("fast delivered %+v: the churn did not reach the listeners", fast)
	}
	t.Logf("fast delivered %+v", fast)
}
