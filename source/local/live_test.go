package local

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

// TestReplaceWhileRunning: a running source takes a new informer in place
// of an old one and a new one at the end; both list and sync, the old one
// is gone from frames and controls, and a listener stalled in the old one
// does not keep it running (the cleanup's goleak check would see it).
func TestReplaceWhileRunning(t *testing.T) {
	s, c := newPods(t, 10)
	if err := c.Populate(cluster.ConfigMaps, 4); err != nil {
		t.Fatal(err)
	}
	run(t, s)
	if _, err := s.ToggleStall("pods", "slow"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRandom(cluster.Pods, "default"); err != nil {
		t.Fatal(err)
	}
	cms, err := c.ListerWatcher(cluster.ConfigMaps, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Replace(Change{Spec: InformerSpec{Name: "configmaps", Resource: "configmaps", Namespace: "shop", ListerWatcher: cms.(cache.ListerWatcher)},
		Listeners: []ListenerSpec{{Name: "seen"}}}); err != nil {
		t.Fatal(err)
	}
	pods, err := c.ListerWatcher(cluster.Pods, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Replace(Change{Old: "pods", Spec: InformerSpec{Name: "pods", Resource: "pods", Namespace: "shop", ListerWatcher: pods.(cache.ListerWatcher)}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	f := s.Pull(0, 0)
	if len(f.Snapshots) != 2 || f.Snapshots[0].Name != "pods" || f.Snapshots[1].Name != "configmaps" {
		t.Fatalf("informers after the change: %+v", f.Snapshots)
	}
	if p := f.Snapshots[0]; p.Namespace != "shop" || len(p.Listeners) != 0 || p.Store.Objects != 11 {
		t.Errorf("the replaced pods informer: namespace %q, %d listeners, %d objects", p.Namespace, len(p.Listeners), p.Store.Objects)
	}
	if cm := f.Snapshots[1]; cm.Store.Objects != 4 || len(cm.Listeners) != 1 {
		t.Errorf("the added configmaps informer: %d objects, %d listeners", cm.Store.Objects, len(cm.Listeners))
	}
	if _, err := s.Replace(Change{Spec: InformerSpec{Name: "pods", Resource: "pods", ListerWatcher: pods.(cache.ListerWatcher)}}); err == nil {
		t.Error("a second informer named pods was accepted")
	}
	if err := s.Remove("configmaps"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("configmaps"); err == nil {
		t.Error("removing an informer twice said nothing")
	}
	if _, err := s.Step("configmaps"); err == nil || err.Error() != source.NoInformer("configmaps").Error() {
		t.Errorf("a control on a removed informer: %v", err)
	}
	if n := len(s.Pull(0, 0).Snapshots); n != 1 {
		t.Errorf("%d informers after removing one", n)
	}
}

// TestReplacedInformerStartsPausedWhilePaused: the user's pause holds for
// an informer added while it is on.
func TestReplacedInformerStartsPausedWhilePaused(t *testing.T) {
	s, c := newPods(t, 3)
	run(t, s)
	if err := s.SetPaused(true); err != nil {
		t.Fatal(err)
	}
	lw, err := c.ListerWatcher(cluster.Pods, cluster.Selector{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Replace(Change{Old: "pods", Spec: InformerSpec{Name: "pods", Resource: "pods", ListerWatcher: lw.(cache.ListerWatcher)}}); err != nil {
		t.Fatal(err)
	}
	if !s.Paused() || s.PausedBy() != source.PausedByYou {
		t.Errorf("paused %v by %q after the change", s.Paused(), s.PausedBy())
	}
}
