package processor

import "k8s.io/client-go/tools/cache"

// AddNotification asks a listener to call OnAdd(Obj, IsInInitialList).
type AddNotification struct {
	Obj             any
	IsInInitialList bool
}

// UpdateNotification asks a listener to call OnUpdate(Old, New).
type UpdateNotification struct{ Old, New any }

// DeleteNotification asks a listener to call OnDelete(Obj). Obj may be a
// cache.DeletedFinalStateUnknown.
type DeleteNotification struct{ Obj any }

// kind classifies a handler call for the Delivered counters.
type kind uint8

const (
	kindNone kind = iota // not delivered: the handler panicked or the notification was not recognised
	kindAdd
	kindUpdate
	kindDelete
	kindSync
)

// entry is one notification waiting in a listener's backlog. sync records
// that it was distributed as a resync, so an OnUpdate is counted as Sync.
// key is filled only when events are wanted, once per notification rather
// than once per listener, so instrumentation costs one key per event.
type entry struct {
	n    any
	sync bool
	key  string
}

// newEntry builds the backlog entry for n; withKey computes its key.
func newEntry(n any, sync, withKey bool) entry {
	e := entry{n: n, sync: sync}
	if withKey {
		e.key = keyOf(e.object())
	}
	return e
}

// callback names the handler method the entry will call, "" if none.
func (e entry) callback() string {
	switch e.n.(type) {
	case AddNotification:
		return CallbackAdd
	case UpdateNotification:
		return CallbackUpdate
	case DeleteNotification:
		return CallbackDelete
	}
	return ""
}

// detail is the callback as shown in events: resyncs are marked so the
// event log tells them apart from real updates.
func (e entry) detail() string {
	if cb := e.callback(); cb != CallbackUpdate || !e.sync {
		return cb
	}
	return CallbackUpdate + " (sync)"
}

// object is the object whose key describes the call: the new one for updates.
func (e entry) object() any {
	switch n := e.n.(type) {
	case AddNotification:
		return n.Obj
	case UpdateNotification:
		return n.New
	case DeleteNotification:
		return n.Obj
	}
	return nil
}

// keyOf is the cache key of obj, or "" when obj has none. It is only
// called off the hot path (Stats, panics) or when a Sink wants events.
func keyOf(obj any) string {
	if obj == nil {
		return ""
	}
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return ""
	}
	return key
}
