package indexer

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// TestConcurrentWritersAndReaders is meant for -race: writers and readers
// hammer one store; every read must be internally consistent, and the final
// counters must account for every write exactly.
func TestConcurrentWritersAndReaders(t *testing.T) {
	const writers, readers, opsPerWriter = 4, 3, 400
	ix := newTestIndexer()
	// calls counts write calls: each bumps the generation exactly once.
	var adds, updates, deletes, replaces, calls atomic.Uint64

	var writing sync.WaitGroup
	for w := range writers {
		writing.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for n := range opsPerWriter {
				o := newObj(modelNamespaces[rng.IntN(3)], modelNames[rng.IntN(6)], strconv.Itoa(n), modelTags(byte(rng.IntN(64)))...)
				var err error
				switch rng.IntN(6) {
				case 0:
					err = ix.Add(o)
					adds.Add(1)
				case 1:
					err = ix.Update(o)
					updates.Add(1)
				case 2:
					err = ix.Delete(o)
					deletes.Add(1)
				case 3:
					if txErr := ix.Transaction(
						cache.Transaction{Type: cache.TransactionTypeAdd, Object: o},
						cache.Transaction{Type: cache.TransactionTypeDelete, Object: newObj(o.Namespace, "a", "")},
					); txErr != nil {
						err = txErr
					}
					adds.Add(1)
					deletes.Add(1)
				case 4:
					ix.Bookmark(strconv.Itoa(n))
				default:
					if w == 0 && n%50 == 0 {
						err = ix.Replace([]any{o}, strconv.Itoa(n))
						replaces.Add(1)
					} else {
						err = ix.Update(o)
						updates.Add(1)
					}
				}
				calls.Add(1)
				if err != nil {
					t.Errorf("writer %d op %d: %v", w, n, err)
				}
			}
		})
	}
	writing.Go(func() {
		if err := ix.AddIndexers(cache.Indexers{"first": firstIndex}); err != nil {
			t.Errorf("AddIndexers: %v", err)
		}
		calls.Add(1)
	})

	done := make(chan struct{})
	var reading sync.WaitGroup
	for r := range readers {
		reading.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 11))
			for {
				select {
				case <-done:
					return
				default:
				}
				readOnce(t, ix, rng)
			}
		})
	}
	writing.Wait()
	close(done)
	reading.Wait()

	checkConsistent(t, ix)
	st := ix.Stats()
	equal(t, "adds", st.Adds, adds.Load())
	equal(t, "updates", st.Updates, updates.Load())
	equal(t, "deletes", st.Deletes, deletes.Load())
	equal(t, "replaces", st.Replaces, replaces.Load())
	equal(t, "generation", st.Generation, calls.Load())
}

// readOnce makes one of each read and checks what a single call guarantees.
func readOnce(t *testing.T, ix *Indexer, rng *rand.Rand) {
	ns := modelNamespaces[rng.IntN(len(modelNamespaces))]
	objs, err := ix.ByIndex(cache.NamespaceIndex, ns)
	if err != nil {
		t.Errorf("ByIndex: %v", err)
		return
	}
	for _, o := range objs {
		if got := o.(*obj).Namespace; got != ns {
			t.Errorf("ByIndex(namespace, %s) returned an object of %s", ns, got)
		}
	}
	keys, err := ix.IndexKeys("tags", "t"+strconv.Itoa(rng.IntN(4)))
	if err != nil || !slices.IsSorted(keys) {
		t.Errorf("IndexKeys: %v %v", keys, err)
	}
	sorted, gen := ix.SortedKeys()
	if !slices.IsSorted(sorted) || gen > ix.Generation() {
		t.Errorf("SortedKeys: %v at generation %d", sorted, gen)
	}
	if len(sorted) > 0 {
		key := sorted[rng.IntN(len(sorted))]
		// The object may be gone by now (nil); if not, its namespace entry
		// must match its key.
		if entries := ix.IndexEntriesOf(key); entries != nil {
			if want, _, _ := strings.Cut(key, "/"); !slices.Equal(entries[cache.NamespaceIndex], []string{want}) {
				t.Errorf("IndexEntriesOf(%s) = %v", key, entries)
			}
		}
	}
	if st := ix.Stats(); st.Indexes[cache.NamespaceIndex] > len(modelNamespaces) || st.Objects > modelKeys {
		t.Errorf("Stats: %+v", st)
	}
	_ = ix.List()
	_ = ix.GetIndexers()
	_ = ix.IndexNames()
	_ = ix.ListIndexFuncValues("tags")
	_ = ix.LastStoreSyncResourceVersion()
}
