package tui

import (
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// The Queue detail predicts what popping a row would do, following
// client-go v0.37's processDeltas and sharedIndexInformer.OnUpdate: an
// Added, Updated, Replaced or Sync delta updates a cached key (OnUpdate)
// or adds a missing one (OnAdd); Deleted deletes (OnDelete, even when
// absent); an update whose resourceVersion did not change is a sync that
// reaches only listeners with a resync due.

// deltaEffect is the prediction from the delta type alone, for sources
// that cannot show the queued objects, and whether the key is in the store
// afterwards.
func deltaEffect(t cache.DeltaType, present bool) (string, bool) {
	switch t {
	case cache.Deleted:
		return "Delete, then OnDelete to every listener", false
	case cache.Sync:
		if present {
			return "Update, then OnUpdate as a resync: only listeners with a resync due", true
		}
		return "Add, then OnAdd", true
	case cache.Replaced:
		if present {
			return "Update, then OnUpdate (a resync if the resourceVersion is unchanged)", true
		}
		return "Add, then OnAdd", true
	case cache.ReplacedAll, cache.SyncAll, cache.Bookmark:
		return keylessEffect(t), present
	default:
		if present {
			return "Update, then OnUpdate", true
		}
		return "Add, then OnAdd", true
	}
}

// keyState is what the cache holds for one key while a row's deltas are
// predicted one after the other.
type keyState struct {
	present bool
	rv      string
	rvKnown bool
}

// predictDelta is deltaEffect with the queued object in hand: the
// resourceVersions tell a real update from a sync, and a tombstone is
// named. It advances ks past d.
func predictDelta(d cache.Delta, ks *keyState) string {
	switch d.Type {
	case cache.Added, cache.Updated, cache.Replaced, cache.Sync:
		rv, known := objectRV(d.Object)
		var effect string
		switch {
		case !ks.present:
			effect = "Add, then OnAdd"
		case known && ks.rvKnown && rv == ks.rv:
			effect = "Update, then OnUpdate as a resync (resourceVersion unchanged): only listeners with a resync due"
		case known && ks.rvKnown:
			effect = "Update, then OnUpdate"
		default:
			effect, _ = deltaEffect(d.Type, true)
		}
		ks.present, ks.rv, ks.rvKnown = true, rv, known
		return effect
	case cache.Deleted:
		ks.present, ks.rv, ks.rvKnown = false, "", false
		if _, ok := tombstone(d.Object); ok {
			return "Delete, then OnDelete(tombstone) to every listener"
		}
		return "Delete, then OnDelete to every listener"
	default:
		return keylessEffect(d.Type)
	}
}

// keylessEffect is what a whole-store item does when popped.
func keylessEffect(t cache.DeltaType) string {
	switch t {
	case cache.ReplacedAll:
		return "Replace the whole cache with the listed objects; OnDelete(DeletedFinalStateUnknown) for every cached key not listed, then OnAdd or OnUpdate for each listed object"
	case cache.SyncAll:
		return "OnUpdate(obj, obj) for every cached object: a resync, so only listeners with a resync due get it"
	case cache.Bookmark:
		return "Record the resourceVersion in the store; no listener is notified"
	}
	return "unknown delta type " + string(t)
}

// tombstone unwraps a DeletedFinalStateUnknown, by value or by pointer.
func tombstone(obj any) (cache.DeletedFinalStateUnknown, bool) {
	switch t := obj.(type) {
	case cache.DeletedFinalStateUnknown:
		return t, true
	case *cache.DeletedFinalStateUnknown:
		if t != nil {
			return *t, true
		}
	}
	return cache.DeletedFinalStateUnknown{}, false
}

// describeDeltaObject says what a delta carries: the object's
// resourceVersion, the tombstone's key and last known version, or what a
// whole-store item holds. cell is short enough for a table column; full,
// when not empty, is the whole story for a line of its own.
func describeDeltaObject(obj any) (cell, full string) {
	if t, ok := tombstone(obj); ok {
		full = "DeletedFinalStateUnknown " + safe(t.Key)
		if rv, known := objectRV(t.Obj); known && rv != "" {
			full += ", last known RV " + rv
		}
		return "tombstone", full
	}
	switch o := obj.(type) {
	case cache.ReplacedAllInfo:
		return fmt.Sprintf("%s at RV %s", humanize.PluralShort(len(o.Objects), "object"), orDash(safe(o.ResourceVersion))), ""
	case cache.SyncAllInfo:
		return "every cached object", ""
	case cache.BookmarkInfo:
		return "RV " + orDash(safe(o.ResourceVersion)), ""
	case nil:
		return "-", ""
	}
	if rv, known := objectRV(obj); known {
		return "RV " + orDash(rv), ""
	}
	return fmt.Sprintf("a %T", obj), ""
}
