package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/redact"
)

// labelingController has the classic bug: its handler labels the cached
// pod it was given instead of a DeepCopy, on every third pod.
type labelingController struct{}

func (*labelingController) addPod(obj any) {
	p := obj.(*corev1.Pod)
	var i int
	fmt.Sscanf(p.Name, "p%d", &i)
	if i%3 == 2 {
		p.Labels = map[string]string{"touched": "yes"}
	}
}

// With Instrumentation.MutationAttribution the snapshot (and so the JSON
// of the report and the agent's frames) names the handler by its own
// function name, with the count and the last object and fields it changed,
// and the event log has one CacheMutation per change.
func TestAttributionReachesSnapshotAndEvents(t *testing.T) {
	src := newTestSource(t)
	for i := range 6 {
		src.Add(pod(fmt.Sprintf("p%d", i)))
	}
	inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, Options{Name: "pods",
		Instrumentation: Instrumentation{MutationAttribution: true, NoUpkeep: true, DescribeMutation: redact.FieldChanges}})
	c := &labelingController{}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: c.addPod})
	if err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	if !cache.WaitForCacheSync(t.Context().Done(), reg.HasSynced) {
		t.Fatal("handler never synced")
	}

	snap := inf.Snapshot()
	l := snap.Listeners[0]
	const name = "github.com/informtop/informtop/engine.(*labelingController)"
	if l.Name != name || l.CacheMutations != 2 || l.LastCacheMutation == nil ||
		strings.Join(l.LastCacheMutation.Fields, ";") != `metadata.labels.touched: "" → "yes"` {
		t.Fatalf("listener %q: %d mutations, last %+v; want %s, 2, the touched label", l.Name, l.CacheMutations, l.LastCacheMutation, name)
	}
	out, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"cacheMutations":2`) || !strings.Contains(string(out), `"lastCacheMutation":{`) {
		t.Fatalf("snapshot JSON lacks cacheMutations/lastCacheMutation: %s", out)
	}
	var keys []string
	for _, e := range inf.Events().Recent(-1) {
		if e.Type == pipeline.EventCacheMutation {
			if e.Listener != name {
				t.Fatalf("event %+v names %q, want %q", e, e.Listener, name)
			}
			keys = append(keys, e.Key)
		}
	}
	if len(keys) != 2 || keys[1] != l.LastCacheMutation.Key {
		t.Fatalf("cache mutation events for %v; want two, the last for %s", keys, l.LastCacheMutation.Key)
	}
	slices.Sort(keys)
	if strings.Join(keys, ",") != "default/p2,default/p5" {
		t.Fatalf("cache mutation events for %v, want default/p2 and default/p5", keys)
	}
}

// Off by default: the same handler goes unnoticed (client-go's own detector
// is a separate, environment-switched matter).
func TestAttributionIsOffUnlessAsked(t *testing.T) {
	src := newTestSource(t)
	src.Add(pod("p2"))
	inf := NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, Options{Instrumentation: Instrumentation{NoUpkeep: true}})
	c := &labelingController{}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: c.addPod})
	if err != nil {
		t.Fatal(err)
	}
	runInformer(t, inf)
	if !cache.WaitForCacheSync(t.Context().Done(), reg.HasSynced) {
		t.Fatal("handler never synced")
	}
	if got := inf.Snapshot().Listeners[0].CacheMutations; got != 0 {
		t.Fatalf("CacheMutations = %d with attribution off", got)
	}
}
