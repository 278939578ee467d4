package engine

import (
	"errors"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine/indexer"
)

// CacheCut is the informer's cache as one state of the server: the store
// with every delta still queued applied on top, at the resourceVersion of
// the newest list, watch event or bookmark the reflector queued. A
// DeltaFIFO's per-key coalescing does not matter here: a key's newest
// queued delta decides it, as the pipeline will.
type CacheCut struct {
	// ResourceVersion is the version the objects stand at.
	ResourceVersion string
	// Objects maps each key to its object's resourceVersion.
	Objects map[string]string
	// Held is how long the queue was held while the cut was copied.
	Held time.Duration
}

// ErrNothingReceived: the informer has not queued a list yet, so its cache
// stands at no resourceVersion.
var ErrNothingReceived = errors.New("the informer has not received its first list yet")

// Cut copies the cache as one state. The queue (and so the reflector and
// the pop loop) waits only while the keys and objects are copied.
func (inf *Informer) Cut() (CacheCut, error) {
	inf.startedMu.Lock()
	q := inf.queue
	inf.startedMu.Unlock()
	if q == nil {
		return CacheCut{}, errors.New("the informer has not started")
	}
	q.cutMu.Lock()
	defer q.cutMu.Unlock()
	if q.lastRV == "" {
		return CacheCut{}, ErrNothingReceived
	}
	c := CacheCut{ResourceVersion: q.lastRV}
	began := time.Now()
	// Only the copy holds the queue: the versions are read after, from
	// objects the pipeline replaces and never changes.
	var stored []indexer.KeyedObject
	var queued cache.Deltas
	q.inner.Cut(func(deltas cache.Deltas) {
		stored = inf.indexer.Objects()
		queued = slices.Clone(deltas)
	})
	c.Held = time.Since(began)
	c.Objects = indexer.VersionsOf(stored)
	applyQueued(c.Objects, queued, inf.keyFunc)
	return c, nil
}

// applyQueued applies queued deltas, oldest first, to key → version.
func applyQueued(objects map[string]string, queued cache.Deltas, keyOf cache.KeyFunc) {
	for _, d := range queued {
		switch d.Type {
		case cache.ReplacedAll:
			info, _ := d.Object.(cache.ReplacedAllInfo)
			clear(objects)
			for _, obj := range info.Objects {
				if key, err := keyOf(obj); err == nil {
					objects[key] = versionOf(obj)
				}
			}
			continue
		case cache.SyncAll, cache.Bookmark:
			continue
		}
		key, err := keyOf(d.Object)
		if err != nil {
			continue
		}
		if d.Type == cache.Deleted {
			delete(objects, key)
		} else {
			objects[key] = versionOf(d.Object)
		}
	}
}

func versionOf(obj any) string {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if m, err := meta.Accessor(obj); err == nil {
		return m.GetResourceVersion()
	}
	return ""
}
