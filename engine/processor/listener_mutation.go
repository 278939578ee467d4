package processor

import (
	"fmt"
	"strings"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/jsondiff"
)

// cacheMutations is a listener's record of the cached objects its handler
// changed. last is replaced, never modified, so Stats can hand it out.
type cacheMutations struct {
	count uint64
	last  *pipeline.CacheMutation
}

// attributed is the cached object a callback is handed and could corrupt:
// the added object, or the new one of an update. Deletes are left out: the
// object has already left the cache.
func (e entry) attributed() any {
	switch n := e.notification().(type) {
	case AddNotification:
		return n.Obj
	case UpdateNotification:
		return n.New
	}
	return nil
}

// checkMutation closes the callback's attribution window and reports a
// change: charged to this listener when it was alone with the object,
// otherwise reported once per window as ambiguous, naming nobody.
func (l *Listener) checkMutation(e entry, pr *probe) {
	obj := e.attributed()
	verdict, suspects := l.p.attrib.exit(pr, obj)
	if verdict != changedByThis && verdict != changedAmbiguous {
		return
	}
	now := l.p.clock.Now()
	key := instr.KeyOf(obj)
	var fields []string
	if d := l.p.describe.Load(); d != nil {
		fields = (*d)(pr.before, obj)
	} else {
		fields = changedPaths(pr.before, obj)
	}
	if verdict == changedAmbiguous {
		l.p.sink.Emit(instr.Event{Time: now, Type: pipeline.EventCacheMutation, Informer: l.p.informer, Key: key,
			Detail: fmt.Sprintf("a cached object changed while %s were all handling it, so no handler is named: %s",
				joinNames(suspects), fieldList(fields))})
		return
	}
	m := &pipeline.CacheMutation{Time: now, Callback: e.callback(), Key: key, Fields: fields}
	l.mu.Lock()
	l.mutations.count++
	l.mutations.last = m
	l.mu.Unlock()
	l.p.sink.Emit(instr.Event{Time: now, Type: pipeline.EventCacheMutation, Informer: l.p.informer, Listener: l.name, Key: key,
		Detail: e.callback() + " changed the cached object (it changed during this callback, with no other handler on it): " + fieldList(fields)})
}

// fieldList joins the changed fields for an event's detail.
func fieldList(fields []string) string {
	if len(fields) == 0 {
		return "no field differs in JSON"
	}
	return strings.Join(fields, ", ")
}

// changedPaths lists the paths that changed, without their values: the
// engine cannot tell which values may be shown (a Secret's may not), so
// without Options.DescribeMutation it names fields only.
func changedPaths(before, after any) []string {
	return jsondiff.Lines(before, after, func(path string, _ jsondiff.Change) string { return path + " (value not shown)" })
}
