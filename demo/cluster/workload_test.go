package cluster

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

// history replays every event of every resource since from, in order, by
// watching from it until the first bookmark (queued behind the replay).
func historySince(t *testing.T, c *Cluster, from uint64) map[string][]watch.Event {
	t.Helper()
	out := map[string][]watch.Event{}
	for _, r := range c.Resources() {
		w := mustWatch(t, mustLW(t, c, r, Selector{}), metav1.ListOptions{ResourceVersion: rvString(from), AllowWatchBookmarks: true})
		for {
			ev := next(t, w)
			if ev.Type == watch.Bookmark {
				break
			}
			out[r] = append(out[r], ev)
		}
		w.Stop()
	}
	return out
}

func runSeeded(t *testing.T, clusterSeed, workloadSeed int64) (*Cluster, map[string][]watch.Event) {
	t.Helper()
	c := New(Options{Seed: clusterSeed, Clock: fakeClock(), HistorySize: 5000, BookmarkFrequency: time.Millisecond})
	for _, r := range c.Resources() {
		if err := c.Populate(r, 40); err != nil {
			t.Fatal(err)
		}
	}
	from := c.ResourceVersion()
	wl := NewWorkload(c, WorkloadOptions{Seed: workloadSeed, MaxObjects: 60})
	wl.Step(250)
	wl.Burst(30)
	wl.Step(250)
	return c, historySince(t, c, from)
}

func TestWorkloadIsDeterministicForASeed(t *testing.T) {
	c1, h1 := runSeeded(t, 1, 99)
	c2, h2 := runSeeded(t, 1, 99)
	_, h3 := runSeeded(t, 1, 100)

	total := 0
	for _, r := range c1.Resources() {
		total += len(h1[r])
		if !apiequality.Semantic.DeepEqual(h1[r], h2[r]) {
			t.Fatalf("%s: same seeds produced different event sequences", r)
		}
		if !apiequality.Semantic.DeepEqual(c1.Snapshot(r), c2.Snapshot(r)) {
			t.Fatalf("%s: same seeds produced different final states", r)
		}
	}
	if total != 530 {
		t.Fatalf("%d events, want 530 (500 steps + a burst of 30)", total)
	}
	if apiequality.Semantic.DeepEqual(h1, h3) {
		t.Fatal("a different workload seed produced the same sequence")
	}
	// All three kinds of change happened.
	seen := map[watch.EventType]int{}
	for _, evs := range h1 {
		for _, ev := range evs {
			seen[ev.Type]++
		}
	}
	if seen[watch.Added] == 0 || seen[watch.Modified] == 0 || seen[watch.Deleted] == 0 {
		t.Fatalf("event mix %v", seen)
	}
}

func TestWorkloadStepWeightsAndCap(t *testing.T) {
	c := New(Options{Seed: 30})
	wl := NewWorkload(c, WorkloadOptions{Seed: 30, Resources: []string{ConfigMaps}, CreateWeight: 1, MaxObjects: 10})
	rv := c.ResourceVersion()
	wl.Step(30)
	// Only creates are drawn; at the cap of 10 they become updates.
	if got, want := wl.Stats(), (WorkloadStats{Creates: 10, Updates: 20}); got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	if c.Len(ConfigMaps) != 10 || c.ResourceVersion() != rv+30 || c.Stats().Writes != 30 {
		t.Fatalf("len %d, rv +%d, writes %d", c.Len(ConfigMaps), c.ResourceVersion()-rv, c.Stats().Writes)
	}

	del := NewWorkload(c, WorkloadOptions{Seed: 31, Resources: []string{ConfigMaps}, DeleteWeight: 1})
	del.Step(12)
	// Ten deletes empty the resource; a draw on an empty resource creates.
	if got, want := del.Stats(), (WorkloadStats{Creates: 1, Deletes: 11}); got != want || c.Len(ConfigMaps) != 0 {
		t.Fatalf("stats %+v (len %d), want %+v and none left", got, c.Len(ConfigMaps), want)
	}
}

func TestBurstHitsAFewHotKeys(t *testing.T) {
	c := New(Options{Seed: 32})
	if err := c.Populate(Pods, 50); err != nil {
		t.Fatal(err)
	}
	w := mustWatch(t, mustLW(t, c, Pods, Selector{}), metav1.ListOptions{ResourceVersion: rvString(c.ResourceVersion())})
	NewWorkload(c, WorkloadOptions{Seed: 32, Resources: []string{Pods}}).Burst(60)
	keys := map[string]int{}
	for range 60 {
		ev := next(t, w)
		if ev.Type != watch.Modified {
			t.Fatalf("burst produced %s", ev.Type)
		}
		keys[keyOf(ev.Object)]++
	}
	if len(keys) != 3 {
		t.Fatalf("burst touched %d keys, want 3 hot keys: %v", len(keys), keys)
	}
	for k, n := range keys {
		if n != 20 {
			t.Fatalf("key %s got %d updates, want 20 (round robin)", k, n)
		}
	}
}

func TestPopulateMakesRealisticReproducibleObjects(t *testing.T) {
	mk := func() *Cluster {
		c := New(Options{Seed: 34, Clock: fakeClock()})
		for _, r := range c.Resources() {
			if err := c.Populate(r, 200); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	c, again := mk(), mk()
	uids := map[string]bool{}
	rvs := map[string]bool{}
	namespaces := map[string]bool{}
	for _, r := range c.Resources() {
		snap := c.Snapshot(r)
		if len(snap) != 200 {
			t.Fatalf("%s: %d objects", r, len(snap))
		}
		if !apiequality.Semantic.DeepEqual(snap, again.Snapshot(r)) {
			t.Fatalf("%s: same seed, different objects", r)
		}
		for key, obj := range snap {
			m, _ := meta.Accessor(obj)
			gvk := obj.GetObjectKind().GroupVersionKind()
			if gvk.Kind == "" || gvk.Version != "v1" {
				t.Fatalf("%s: TypeMeta %v", key, gvk)
			}
			if uids[string(m.GetUID())] || rvs[m.GetResourceVersion()] {
				t.Fatalf("%s: uid or resourceVersion reused", key)
			}
			uids[string(m.GetUID())], rvs[m.GetResourceVersion()] = true, true
			namespaces[m.GetNamespace()] = true
			l := m.GetLabels()
			if l["app"] == "" || l["tier"] == "" || l["team"] == "" {
				t.Fatalf("%s: labels %v", key, l)
			}
			if ts := m.GetCreationTimestamp().Time; ts.After(fixedTime) || ts.Before(fixedTime.Add(-31*24*time.Hour)) {
				t.Fatalf("%s: created %v", key, m.GetCreationTimestamp())
			}
			switch o := obj.(type) {
			case *corev1.Pod:
				owner := metav1.GetControllerOf(o)
				if owner == nil || owner.Kind != "ReplicaSet" || o.Labels["pod-template-hash"] == "" ||
					owner.Name != o.Labels["app"]+"-"+o.Labels["pod-template-hash"] || o.Spec.NodeName == "" ||
					len(o.Spec.Containers) == 0 || len(o.Status.ContainerStatuses) == 0 {
					t.Fatalf("%s: not a ReplicaSet's pod: %#v", key, o)
				}
			case *appsv1.Deployment:
				sel, err := metav1.LabelSelectorAsSelector(o.Spec.Selector)
				if err != nil || !sel.Matches(labels.Set(o.Spec.Template.Labels)) || o.Status.ReadyReplicas != *o.Spec.Replicas {
					t.Fatalf("%s: inconsistent deployment", key)
				}
			case *corev1.Secret:
				if len(o.Data) < 2 {
					t.Fatalf("%s: secret without data", key)
				}
			case *corev1.ConfigMap:
				if len(o.Data) == 0 {
					t.Fatalf("%s: empty configmap", key)
				}
			}
		}
	}
	if len(namespaces) != len(DefaultNamespaces) {
		t.Fatalf("objects spread over %v", namespaces)
	}
	for _, r := range c.Resources() {
		if _, err := c.ExampleObject(r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUpdateChangesSomethingVisible(t *testing.T) {
	c := New(Options{Seed: 35, Clock: fakeClock()})
	for _, r := range c.Resources() {
		if err := c.Populate(r, 20); err != nil {
			t.Fatal(err)
		}
		for _, key := range c.Keys(r) {
			for range 4 {
				before := c.Snapshot(r)[key]
				after, err := c.Update(r, key)
				if err != nil {
					t.Fatal(err)
				}
				// Ignore the resourceVersion: the content itself must change.
				b, a := before.DeepCopyObject(), after.DeepCopyObject()
				setRV(b, 1)
				setRV(a, 1)
				if apiequality.Semantic.DeepEqual(a, b) {
					t.Fatalf("%s %s: update changed only the resourceVersion", r, key)
				}
			}
		}
	}
	// What the server hands out is a copy: changing it changes nothing.
	key := c.Keys(Pods)[0]
	got := c.Snapshot(Pods)[key].(*corev1.Pod)
	got.Labels["app"] = "tampered"
	if c.Snapshot(Pods)[key].(*corev1.Pod).Labels["app"] == "tampered" {
		t.Fatal("Snapshot shares memory with the server")
	}
}
