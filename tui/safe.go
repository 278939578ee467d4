package tui

import (
	"maps"
	"slices"
	"strings"

	"github.com/informtop/informtop/agent/shared/termsafe"
	"github.com/informtop/informtop/agent/source"
)

// Every text the dashboard shows that a source sent (names, keys, labels,
// errors, notes, an object's YAML) comes from the API server or an attached
// agent, and a control character in it would reach the terminal: clear the
// screen, retitle the window, write the clipboard, hide what follows. It is
// made safe here, as it arrives from the source, so that no view can forget
// to: runs of whitespace fold to one space (oneLine) and every other
// character that is not printable is escaped (termsafe.String).
//
// Queued deltas carry the objects themselves; what the Queue view reads
// from them (a resourceVersion, a tombstone's key) is made safe where it
// is read (objectRV, describeDeltaObject).
//
// Names and keys go back to the source as shown (verify, step, open an
// object), so one that needed escaping is looked up by its escaped form and
// not found. That is the safe failure, and a rare one: the API server
// validates object names, namespaces and labels (a custom resource's name
// only loosely).

// safe is one line of source text, fit for the terminal.
func safe(s string) string { return termsafe.String(oneLine(s)) }

// safeLines is multi-line source text (an object's YAML) with the line
// breaks kept and everything else not printable escaped.
func safeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = termsafe.String(l)
	}
	return strings.Join(lines, "\n")
}

// safeAll returns ss with every element safe; ss itself when none
// changed, so the common case copies nothing and never writes to what the
// source may still hold.
func safeAll(ss []string) []string {
	for i, s := range ss {
		if safe(s) != s {
			out := slices.Clone(ss)
			for j := i; j < len(out); j++ {
				out[j] = safe(out[j])
			}
			return out
		}
	}
	return ss
}

// safeKeys returns m with safe keys; m itself when none changed.
func safeKeys[V any](m map[string]V) map[string]V {
	for k := range m {
		if safe(k) != k {
			out := make(map[string]V, len(m))
			for k, v := range m {
				out[safe(k)] = v
			}
			return out
		}
	}
	return m
}

// safeStrings returns m (labels, reasons by informer) with safe keys and
// values; m itself when none changed.
func safeStrings[M ~map[string]string](m M) M {
	for k, v := range m {
		if safe(k) != k || safe(v) != v {
			out := make(M, len(m))
			for k, v := range m {
				out[safe(k)] = safe(v)
			}
			return out
		}
	}
	return m
}

// safeFrame makes one tick's pull safe. The snapshots are copied before
// they change, as their slices may be the source's own; the events are
// the Pull's copies, which fetchData already writes to.
func safeFrame(msg *dataMsg) {
	msg.snaps = slices.Clone(msg.snaps)
	for i := range msg.snaps {
		msg.snaps[i] = safeSnapshot(msg.snaps[i])
	}
	msg.notes = safeAll(msg.notes)
	for i := range msg.events {
		e := &msg.events[i]
		e.Informer, e.Listener, e.Key, e.Detail, e.Frame = safe(e.Informer), safe(e.Listener), safe(e.Key), safe(e.Detail), safe(e.Frame)
	}
	msg.status.Message, msg.status.LastError = safe(msg.status.Message), safe(msg.status.LastError)
	msg.reasons = safeStrings(msg.reasons)
	msg.workqueues = slices.Clone(msg.workqueues)
	for i := range msg.workqueues {
		msg.workqueues[i].Name = safe(msg.workqueues[i].Name)
	}
	msg.server = safeServer(msg.server)
	msg.processes = safeProcesses(msg.processes)
}

// safeSnapshot is s with every text safe; slices and maps that change
// are copied first.
func safeSnapshot(s source.Informer) source.Informer {
	s.Name, s.Resource, s.LastSyncResourceVersion = safe(s.Name), safe(s.Resource), safe(s.LastSyncResourceVersion)
	s.Implementation = safe(s.Implementation)
	s.Reflector.LastError = safe(s.Reflector.LastError)
	s.Store.LastResourceVersion = safe(s.Store.LastResourceVersion)
	s.Store.Indexes = safeKeys(s.Store.Indexes)
	s.Queue.Head = safeItems(s.Queue.Head)
	s.Memory.ByField = safeKeys(s.Memory.ByField)
	s.Memory.SavedByTransforms = safeKeys(s.Memory.SavedByTransforms)
	s.Memory.WouldSaveByTransforms = safeKeys(s.Memory.WouldSaveByTransforms)
	s.Listeners = slices.Clone(s.Listeners)
	for i := range s.Listeners {
		l := &s.Listeners[i]
		l.Name, l.InCallback, l.InCallbackKey, l.LastPanic = safe(l.Name), safe(l.InCallback), safe(l.InCallbackKey), safe(l.LastPanic)
		if m := l.LastCacheMutation; m != nil {
			l.LastCacheMutation = &source.CacheMutation{Time: m.Time, Callback: safe(m.Callback), Key: safe(m.Key), Fields: safeAll(m.Fields)}
		}
		if f := l.Frame; f != nil {
			l.Frame = &source.StackFrame{Function: safe(f.Function), File: safe(f.File), Line: f.Line}
		}
	}
	return s
}

// safeItems returns queue rows with safe keys; items itself when none
// changed.
func safeItems(items []source.QueueItem) []source.QueueItem {
	for i, it := range items {
		if safe(it.Key) != it.Key {
			out := slices.Clone(items)
			for j := i; j < len(out); j++ {
				out[j].Key = safe(out[j].Key)
			}
			return out
		}
	}
	return items
}

// safeServer is what the API server says about each informer, safe.
func safeServer(server map[string]source.ServerStats) map[string]source.ServerStats {
	if server == nil {
		return nil
	}
	out := make(map[string]source.ServerStats, len(server))
	for name, st := range server {
		st.Reason, st.From, st.WatchCacheResourceVersion = safe(st.Reason), safe(st.From), safe(st.WatchCacheResourceVersion)
		if p := st.Path; p != nil {
			cp := *p
			cp.Watchers = slices.Clone(p.Watchers)
			for i := range cp.Watchers {
				cp.Watchers[i].Client = safe(cp.Watchers[i].Client)
			}
			st.Path = &cp
		}
		out[safe(name)] = st
	}
	return out
}

// safeStep is a step's result with every text safe.
func safeStep(r source.StepResult) source.StepResult {
	r.Informer, r.Key = safe(r.Informer), safe(r.Key)
	r.Keys, r.Store, r.ResourceVersions, r.Journey = safeAll(r.Keys), safeAll(r.Store), safeAll(r.ResourceVersions), safeAll(r.Journey)
	r.Notifications = slices.Clone(r.Notifications)
	for i := range r.Notifications {
		n := &r.Notifications[i]
		n.Listener, n.Callback, n.Key, n.Detail = safe(n.Listener), safe(n.Callback), safe(n.Key), safe(n.Detail)
	}
	r.Summary = slices.Clone(r.Summary)
	for i := range r.Summary {
		r.Summary[i].Listener, r.Summary[i].Callback = safe(r.Summary[i].Listener), safe(r.Summary[i].Callback)
	}
	return r
}

// safeEntries is the Store view's rows with safe keys and labels; entries
// itself when none changed.
func safeEntries(entries []source.Entry) []source.Entry {
	for i, e := range entries {
		if safe(e.Key) != e.Key || !maps.Equal(safeStrings(e.Labels), e.Labels) {
			out := slices.Clone(entries)
			for j := i; j < len(out); j++ {
				out[j].Key, out[j].Labels = safe(out[j].Key), safeStrings(out[j].Labels)
			}
			return out
		}
	}
	return entries
}

// safeObject is one cached object as the Store view shows it, safe.
func safeObject(o source.Object) source.Object {
	o.Key, o.Kind, o.ResourceVersion, o.YAML = safe(o.Key), safe(o.Kind), safe(o.ResourceVersion), safeLines(o.YAML)
	if o.IndexEntries != nil {
		entries := make(map[string][]string, len(o.IndexEntries))
		for name, values := range o.IndexEntries {
			entries[safe(name)] = safeAll(values)
		}
		o.IndexEntries = entries
	}
	return o
}

// safePending is a listener's backlog head with safe keys; pending
// itself when none changed.
func safePending(pending []source.Pending) []source.Pending {
	for i, p := range pending {
		if safe(p.Callback) != p.Callback || safe(p.Key) != p.Key {
			out := slices.Clone(pending)
			for j := i; j < len(out); j++ {
				out[j].Callback, out[j].Key = safe(out[j].Callback), safe(out[j].Key)
			}
			return out
		}
	}
	return pending
}
