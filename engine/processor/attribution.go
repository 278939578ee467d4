package processor

import (
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// attribution finds which listener changed a cached object inside its own
// callback. Each callback takes a deep copy of the object before the handler
// runs and compares it afterwards; a change is pinned on the listener only
// when its callback window on that object was exclusive: no other listener
// was inside a callback on the same object at any moment of it. Listeners
// run concurrently, so an overlapping window makes the change ambiguous,
// and then it is reported without naming anyone.
//
// Objects are told apart by pointer: the cache hands the same pointer to
// every listener, which is exactly why a mutation is shared.
type attribution struct {
	mu      sync.Mutex
	windows map[uintptr]*objectWindow
}

// objectWindow is the set of callbacks currently open on one object.
type objectWindow struct {
	inside    int      // callbacks open now
	entries   uint64   // callbacks ever opened while the window existed
	names     []string // listeners that opened one, in order, deduplicated
	ambiguous bool     // an ambiguous change was already reported for this window
}

// probe is what one callback took on entry.
type probe struct {
	ptr    uintptr
	before runtime.Object
	alone  bool   // no other callback was open on the object at entry
	seq    uint64 // entries counter right after this one
}

func newAttribution() *attribution {
	return &attribution{windows: make(map[uintptr]*objectWindow)}
}

// enter opens a callback window on obj for listener and copies obj. It
// returns nil for objects it cannot follow (not a pointer to a
// runtime.Object, or a tombstone).
func (a *attribution) enter(listener string, obj any) *probe {
	ro, ok := obj.(runtime.Object)
	if !ok {
		return nil
	}
	v := reflect.ValueOf(ro)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	p := &probe{ptr: v.Pointer(), before: ro.DeepCopyObject()}
	a.mu.Lock()
	w := a.windows[p.ptr]
	if w == nil {
		w = &objectWindow{}
		a.windows[p.ptr] = w
	}
	p.alone = w.inside == 0
	w.inside++
	w.entries++
	p.seq = w.entries
	if !containsString(w.names, listener) {
		w.names = append(w.names, listener)
	}
	a.mu.Unlock()
	return p
}

// mutationVerdict is what exit concluded about one callback.
type mutationVerdict uint8

const (
	unchanged mutationVerdict = iota
	changedByThis
	changedAmbiguous
	changedAlreadyReported // ambiguous, reported by another listener of the window
)

// exit closes the window opened by enter and compares obj with the copy.
// On a change it also returns the listeners that shared the window.
func (a *attribution) exit(p *probe, obj any) (verdict mutationVerdict, suspects []string) {
	changed := !reflect.DeepEqual(p.before, obj)
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.windows[p.ptr]
	exclusive := p.alone && w.entries == p.seq
	switch {
	case !changed:
		verdict = unchanged
	case exclusive:
		verdict = changedByThis
	case w.ambiguous:
		verdict = changedAlreadyReported
	default:
		w.ambiguous = true
		verdict, suspects = changedAmbiguous, append([]string(nil), w.names...)
	}
	w.inside--
	if w.inside == 0 {
		delete(a.windows, p.ptr)
	}
	return verdict, suspects
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// joinNames lists listener names for a sentence: "a, b and c".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
