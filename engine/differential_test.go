package engine

import (
	"context"
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// The same random sequence of watch events, drops and forced relists, fed
// to our informer and to client-go's, must give every handler the same
// callbacks per key and leave the same cache. Order across keys may
// legitimately differ (DeltaFIFO pops by key, tombstones of one relist come
// in map order), so sequences are compared key by key.
func TestDifferentialAgainstClientGo(t *testing.T) {
	// A run spends most of its time waiting out the reflectors' backoff
	// before each relist, not on a CPU, so all runs go at once: t.Run from
	// several goroutines is not capped by -parallel as t.Parallel is.
	var runs sync.WaitGroup
	for _, kind := range queueKinds {
		for _, seed := range []int64{1, 2, 3} {
			runs.Go(func() {
				t.Run(fmt.Sprintf("%s/seed%d", kind, seed), func(t *testing.T) {
					runDifferential(t, kind, seed)
				})
			})
		}
	}
	runs.Wait()
}

func runDifferential(t *testing.T, kind QueueKind, seed int64) {
	src := newTestSource(t)
	rng := rand.New(rand.NewSource(seed))
	live := map[string]*corev1.Pod{}
	next := 0
	addPod := func() {
		p := pod(fmt.Sprintf("p%03d", next))
		next++
		src.Add(p)
		live[p.Name] = p
	}
	for range 5 {
		addPod()
	}

	ours := newTestInformer(src, kind, 0)
	ourRec := &recorder{}
	if _, err := ours.AddEventHandler(ourRec); err != nil {
		t.Fatal(err)
	}
	refRec := &recorder{}
	ref, refStore := referenceInformer(t, src, kind, refRec)
	runInformer(t, ours)
	runInformer(t, ref)
	// Both must have listed before anything changes; otherwise one lists a
	// state the other learns of through watch events, and their (equally
	// correct) callbacks differ.
	waitfor.True(t, "both informers to sync", func() bool { return ours.HasSynced() && ref.HasSynced() })

	pick := func() *corev1.Pod {
		names := make([]string, 0, len(live))
		for n := range live {
			names = append(names, n)
		}
		sort.Strings(names)
		return live[names[rng.Intn(len(names))]]
	}
	relists := 0
	for round := range 20 {
		for range 1 + rng.Intn(6) {
			switch op := rng.Intn(9); {
			case op < 3 || len(live) == 0:
				addPod()
			case op < 7:
				p := pick().DeepCopy()
				p.Labels = map[string]string{"round": fmt.Sprint(round)}
				src.Modify(p)
				live[p.Name] = p
			default:
				p := pick()
				src.Delete(p.DeepCopy())
				delete(live, p.Name)
			}
		}
		// Twice, a delete the watch never carries, then the watches break
		// and the history is flushed: the re-watch from an older
		// resourceVersion gets 410 Gone and both reflectors relist, which
		// is the only way they learn of that delete. (More would run into
		// the reflector's growing backoff.)
		if len(live) > 0 && (round == 4 || round == 11) {
			p := pick()
			src.DeleteDropWatch(p.DeepCopy())
			delete(live, p.Name)
			src.ResetWatch()
			relists++
		}
		want := sourceState(t, src)
		waitfor.True(t, fmt.Sprintf("round %d to converge", round), func() bool {
			return reflect.DeepEqual(storeState(ours.GetStore()), want) && reflect.DeepEqual(storeState(refStore), want)
		})
	}

	// Every delete eventually arrives (relists turn dropped ones into
	// tombstones); wait until both handlers have caught up.
	caughtUp := func() bool { return reflect.DeepEqual(perKey(ourRec.snapshot()), perKey(refRec.snapshot())) }
	if wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 20*time.Second, true,
		func(context.Context) (bool, error) { return caughtUp(), nil }) != nil {
		ourCalls, refCalls := perKey(ourRec.snapshot()), perKey(refRec.snapshot())
		for _, key := range slices.Sorted(maps.Keys(ourCalls)) {
			if !reflect.DeepEqual(ourCalls[key], refCalls[key]) {
				t.Errorf("%s:\n ours       %v\n client-go  %v", key, ourCalls[key], refCalls[key])
			}
		}
		for key, calls := range refCalls {
			if _, ok := ourCalls[key]; !ok {
				t.Errorf("%s: ours none, client-go %v", key, calls)
			}
		}
		t.Fatal("the handlers' callbacks differ from client-go's")
	}
	if ours.Snapshot().Reflector.Relists < uint64(relists) {
		t.Fatalf("relists counted %d, want at least %d", ours.Snapshot().Reflector.Relists, relists)
	}
}

// referenceInformer is client-go's own pipeline for kind: its default
// SharedIndexInformer (RealFIFO) or, for DeltaFIFO, a cache.Controller over
// client-go's DeltaFIFO applying deltas as client-go's processDeltas does.
func referenceInformer(t *testing.T, src testSource, kind QueueKind, rec *recorder) (cache.SharedIndexInformer, cache.Store) {
	t.Helper()
	if kind == RealFIFO {
		inf := cache.NewSharedIndexInformer(src, &corev1.Pod{}, 0, cache.Indexers{})
		if _, err := inf.AddEventHandler(rec); err != nil {
			t.Fatal(err)
		}
		return inf, inf.GetStore()
	}
	store := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{})
	q := cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KnownObjects: store, EmitDeltaTypeReplaced: true})
	ctrl := cache.New(&cache.Config{
		Queue:         q,
		ListerWatcher: src,
		ObjectType:    &corev1.Pod{},
		Process: func(obj any, initial bool) error {
			for _, d := range obj.(cache.Deltas) {
				switch d.Type {
				case cache.Deleted:
					if err := store.Delete(d.Object); err != nil {
						return err
					}
					rec.OnDelete(d.Object)
				default:
					if old, exists, _ := store.Get(d.Object); exists {
						if err := store.Update(d.Object); err != nil {
							return err
						}
						rec.OnUpdate(old, d.Object)
					} else {
						if err := store.Add(d.Object); err != nil {
							return err
						}
						rec.OnAdd(d.Object, initial)
					}
				}
			}
			return nil
		},
	})
	return controllerInformer{ctrl}, store
}

// controllerInformer lets runInformer drive a bare cache.Controller.
type controllerInformer struct{ cache.Controller }

func (c controllerInformer) AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return nil, nil
}
func (c controllerInformer) AddEventHandlerWithResyncPeriod(cache.ResourceEventHandler, time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return nil, nil
}
func (c controllerInformer) AddEventHandlerWithOptions(cache.ResourceEventHandler, cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return nil, nil
}
func (c controllerInformer) RemoveEventHandler(cache.ResourceEventHandlerRegistration) error {
	return nil
}
func (c controllerInformer) GetStore() cache.Store                              { return nil }
func (c controllerInformer) GetController() cache.Controller                    { return c.Controller }
func (c controllerInformer) SetWatchErrorHandler(cache.WatchErrorHandler) error { return nil }
func (c controllerInformer) SetWatchErrorHandlerWithContext(cache.WatchErrorHandlerWithContext) error {
	return nil
}
func (c controllerInformer) SetTransform(cache.TransformFunc) error { return nil }
func (c controllerInformer) IsStopped() bool                        { return false }
func (c controllerInformer) AddIndexers(cache.Indexers) error       { return nil }
func (c controllerInformer) GetIndexer() cache.Indexer              { return nil }

// state maps key -> resourceVersion.
func storeState(s cache.Store) map[string]string {
	out := map[string]string{}
	for _, obj := range s.List() {
		out[keyOf(obj)] = rv(obj)
	}
	return out
}

func sourceState(t *testing.T, src testSource) map[string]string {
	t.Helper()
	list, err := src.List(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i := range list.(*corev1.List).Items {
		item := &list.(*corev1.List).Items[i]
		p := item.Object.(*corev1.Pod)
		out[keyOf(p)] = p.ResourceVersion
	}
	return out
}

// perKey groups callbacks by key, keeping what does not depend on when a
// reflector happened to relist. Two reflectors on the same source need not
// relist at the same moments (a watch that breaks within its first second
// ends with an error, one that lives longer does not; backoff jitter), and
// client-go against client-go differs the same way. A relist adds
// unchanged-resourceVersion updates, and turns a delete it learns of by
// listing into a DeletedFinalStateUnknown carrying the last object it knew
// rather than the deleted one; so those updates are dropped and a delete
// compares by its place in the key's sequence, not by the version it
// carries. Every add and every real update with their resourceVersions, and
// every delete, in order per key, must still match exactly.
func perKey(calls []call) map[string][]call {
	out := map[string][]call{}
	for _, c := range calls {
		if c.Kind == "update" && c.OldRV == c.RV {
			continue
		}
		if c.Kind == "delete" {
			c.Tomb, c.RV = false, ""
		}
		out[c.Key] = append(out[c.Key], c)
	}
	return out
}
