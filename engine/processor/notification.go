package processor

import "github.com/informtop/informtop/agent/pipeline"

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
	kindTombstone // an OnDelete of a cache.DeletedFinalStateUnknown
)

// entry is one notification waiting in a listener's backlog. An update
// distributed as a resync is held as a syncUpdate, so it is counted as Sync;
// encoding that in the type keeps an entry one interface value wide, which
// matters because a backlog can hold a whole initial list.
type entry struct {
	n any
}

// syncUpdate marks an UpdateNotification that came from a resync.
type syncUpdate struct{ UpdateNotification }

func newEntry(n any, sync bool) entry {
	if u, ok := n.(UpdateNotification); ok && sync {
		return entry{n: syncUpdate{u}}
	}
	return entry{n: n}
}

// isSync reports whether the entry is a resync.
func (e entry) isSync() bool {
	_, ok := e.n.(syncUpdate)
	return ok
}

// notification returns what was distributed, without the resync mark.
func (e entry) notification() any {
	if s, ok := e.n.(syncUpdate); ok {
		return s.UpdateNotification
	}
	return e.n
}

// callback names the handler method the entry will call, "" if none.
func (e entry) callback() string {
	switch e.notification().(type) {
	case AddNotification:
		return pipeline.CallbackAdd
	case UpdateNotification:
		return pipeline.CallbackUpdate
	case DeleteNotification:
		return pipeline.CallbackDelete
	}
	return ""
}

// detail is the callback as shown in events: resyncs are marked so the
// event log tells them apart from real updates.
func (e entry) detail() string {
	if cb := e.callback(); cb != pipeline.CallbackUpdate || !e.isSync() {
		return cb
	}
	return pipeline.CallbackUpdate + " (sync)"
}

// object is the object whose key describes the call: the new one for updates.
func (e entry) object() any {
	switch n := e.notification().(type) {
	case AddNotification:
		return n.Obj
	case UpdateNotification:
		return n.New
	case DeleteNotification:
		return n.Obj
	}
	return nil
}
