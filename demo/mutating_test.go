package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/source/local"
)

const touchedField = `metadata.labels.touched: "" → "yes"`

func TestMutatingHandler(t *testing.T) {
	t.Parallel()
	d := newDemo(t, Config{Scenario: "mutating-handler", Seed: 5, TimeScale: 0.01})
	notes := watchNotes(d, map[string]claim{
		"intro": func(d *Demo) (bool, string) {
			if ok, why := claimSynced(d); !ok {
				return false, why
			}
			return d.work.held(), "background changes still run"
		},
		"mutate": func(d *Demo) (bool, string) {
			key, _, _ := d.mutationFacts()
			s := snapshotOf(t, d, "pods")
			ls := listenerStats(t, s, labeler)
			if ls.CacheMutations != 1 || ls.LastCacheMutation == nil || ls.LastCacheMutation.Key != key ||
				!slices.Equal(ls.LastCacheMutation.Fields, []string{touchedField}) {
				return false, fmt.Sprintf("labeler has %d mutations, last %+v; want 1 on %s", ls.CacheMutations, ls.LastCacheMutation, key)
			}
			for _, name := range []string{"fast", "medium"} {
				if n := listenerStats(t, s, name).CacheMutations; n != 0 {
					return false, fmt.Sprintf("%s is charged with %d mutations", name, n)
				}
			}
			if got := labelOf(d.Informer("pods"), key); got != "yes" {
				return false, fmt.Sprintf("the store's %s has touched=%q", key, got)
			}
			server := d.cluster.Snapshot(cluster.Pods)[key]
			if m, _ := meta.Accessor(server); m == nil || m.GetLabels()[local.MutationLabel] != "" {
				return false, "the server has the label too"
			}
			var named []string
			for _, e := range d.Events().Recent(-1) {
				if e.Type == pipeline.EventCacheMutation {
					named = append(named, e.Listener+" "+e.ObjectKey()+" "+e.Detail)
				}
			}
			if len(named) != 1 || !strings.HasPrefix(named[0], labeler+" "+key+" OnUpdate") || !strings.HasSuffix(named[0], touchedField) {
				return false, fmt.Sprintf("cache mutation events %q", named)
			}
			return true, ""
		},
		"next version": func(d *Demo) (bool, string) {
			key, _, next := d.mutationFacts()
			for _, name := range []string{"fast", "medium"} {
				if n := d.Listener("pods", name).Counts().SawMutated; n != 1 {
					return false, fmt.Sprintf("%s saw the label on %d old objects", name, n)
				}
			}
			obj, _ := d.Informer("pods").Cached(key)
			if _, rv := local.KeyAndVersion(obj); rv != next || labelOf(d.Informer("pods"), key) != "" {
				return false, fmt.Sprintf("the store's %s is at %s with touched=%q, want %s without it", key, rv, labelOf(d.Informer("pods"), key), next)
			}
			return true, ""
		},
		"lesson": func(d *Demo) (bool, string) { return !d.work.held(), "background changes are still held" },
	})
	start(t, d)
	waitfor.Seen(t, "the scenario's last step", func() (bool, string) {
		notes.mu.Lock()
		defer notes.mu.Unlock()
		return slices.Contains(notes.order, "lesson"), fmt.Sprintf("steps so far %q", notes.order)
	})
	notes.check(t, "intro", "hold labeler", "change", "mutate", "next version", "lesson")
	if ls := listenerStats(t, snapshotOf(t, d, "pods"), labeler); ls.CacheMutations != 1 {
		t.Errorf("labeler charged %d times by the end, want 1", ls.CacheMutations)
	}

	// What `informtop --demo --scenario mutating-handler --once --json`
	// prints once the script has run (--duration): the count per listener
	// and the last change.
	var js bytes.Buffer
	if err := report.WriteJSON(&js, report.Build("demo", d.States(), nil, source.RingStatsOf(d.Events().Stats()), nil, time.Now())); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Informers []struct {
			Listeners []struct {
				Name              string `json:"name"`
				CacheMutations    uint64 `json:"cacheMutations"`
				LastCacheMutation *struct {
					Key    string   `json:"key"`
					Fields []string `json:"fields"`
				} `json:"lastCacheMutation"`
			} `json:"listeners"`
		} `json:"informers"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	key, _, _ := d.mutationFacts()
	for _, l := range doc.Informers[0].Listeners {
		want := uint64(0)
		if l.Name == labeler {
			want = 1
			if l.LastCacheMutation == nil || l.LastCacheMutation.Key != key || !slices.Equal(l.LastCacheMutation.Fields, []string{touchedField}) {
				t.Errorf("the report's last change of labeler is %+v, want %s with %s", l.LastCacheMutation, key, touchedField)
			}
		}
		if l.CacheMutations != want {
			t.Errorf("the report counts %d cache mutations for %s, want %d", l.CacheMutations, l.Name, want)
		}
	}
}

// labelOf is the mutation label of the store's object at key. Claims run
// on the script's goroutine, so a missing object is a value, not a Fatal.
func labelOf(inf *local.Informer, key string) string {
	obj, ok, err := local.EngineOf(inf).GetStore().GetByKey(key)
	if err != nil || !ok {
		return "(no such object)"
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "(no metadata)"
	}
	return m.GetLabels()[local.MutationLabel]
}
