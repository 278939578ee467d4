// Package wirekeep keeps, for a while, the bytes each object was decoded
// from, so that a recording can store an object as the API server sent it
// instead of encoding it again: encoding a pod costs about a quarter of
// decoding it, and doing that on the stream's way to the reflector slowed
// a saturated informer by half (recording's benchmarks).
package wirekeep

import (
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Source is a ListerWatcher whose objects a Keeper sees decoded.
type Source interface {
	WireKeeper() *Keeper
}

// maxKept bounds what is kept but never taken (objects decoded for
// events a stopped stream never delivered).
const maxKept = 4096

// takeSearch is how far down the line Take looks: a stream delivers its
// events in the order it decoded them, so the object is nearly always
// first; past this it was never kept (an ERROR event's Status).
const takeSearch = 64

// Keeper remembers, once armed, the bytes of every single object its
// serializer decodes, in the order decoded, until Take asks for them.
// Disarmed (the default), it costs one atomic load per decoded object.
// A line rather than a map: keeping and taking are an append and a look
// at the front, which is what the decoding goroutine, the informer's
// slowest, waits for when both want the lock.
// Locking: mu guards line and head; armed and taken are atomics.
type Keeper struct {
	armed atomic.Bool
	taken atomic.Uint64
	mu    sync.Mutex
	line  []kept // line[head:] wait to be taken, oldest first
	head  int
}

type kept struct {
	obj runtime.Object
	b   []byte
}

// Arm starts keeping bytes.
func (k *Keeper) Arm() { k.armed.Store(true) }

// Take returns the bytes obj was decoded from, and forgets them and
// everything decoded before obj: events a stream decoded but never
// delivered, which no one will ask for.
func (k *Keeper) Take(obj runtime.Object) ([]byte, bool) {
	if !k.armed.Load() {
		return nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := k.head; i < min(len(k.line), k.head+takeSearch); i++ {
		if k.line[i].obj == obj {
			b := k.line[i].b
			clear(k.line[k.head : i+1])
			k.head = i + 1
			k.taken.Add(1)
			return b, true
		}
	}
	return nil, false
}

// Stats says how many objects' bytes are kept and not yet taken, and how
// many were taken.
func (k *Keeper) Stats() (kept int, taken uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.line) - k.head, k.taken.Load()
}

// Forget drops what was kept and never taken, e.g. before a new stream.
func (k *Keeper) Forget() {
	k.mu.Lock()
	defer k.mu.Unlock()
	clear(k.line)
	k.line, k.head = k.line[:0], 0
}

func (k *Keeper) keep(obj runtime.Object, b []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case k.head == len(k.line): // all taken: start again at the front
		k.line, k.head = k.line[:0], 0
	case len(k.line)-k.head >= maxKept: // drop the oldest
		k.line[k.head] = kept{}
		k.head++
	}
	if k.head > 0 && len(k.line) == cap(k.line) { // move down rather than grow
		n := copy(k.line, k.line[k.head:])
		clear(k.line[n:])
		k.line, k.head = k.line[:n], 0
	}
	k.line = append(k.line, kept{obj: obj, b: b})
}

// Serializer wraps ns so that its decoders report to k. Only the decoder
// of single objects is wrapped: a watch event's object is decoded by it
// from bytes that belong to that event alone (client-go copies them out
// of the stream's frame), so they can be kept without a copy.
func (k *Keeper) Serializer(ns runtime.NegotiatedSerializer) runtime.NegotiatedSerializer {
	return negotiated{NegotiatedSerializer: ns, k: k}
}

type negotiated struct {
	runtime.NegotiatedSerializer
	k *Keeper
}

func (n negotiated) SupportedMediaTypes() []runtime.SerializerInfo {
	infos := n.NegotiatedSerializer.SupportedMediaTypes()
	out := make([]runtime.SerializerInfo, len(infos))
	for i, info := range infos {
		if info.Serializer != nil {
			info.Serializer = keeping{Serializer: info.Serializer, k: n.k}
		}
		out[i] = info
	}
	return out
}

// keeping is a Serializer whose successful decodes of single objects are
// kept by k while it is armed.
type keeping struct {
	runtime.Serializer
	k *Keeper
}

func (s keeping) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, gvk, err := s.Serializer.Decode(data, defaults, into)
	if err == nil && obj != nil && s.k.armed.Load() && !isList(obj) {
		s.k.keep(obj, data)
	}
	return obj, gvk, err
}

// isList: obj is a typed list (or a Status, which is never an event's
// object worth keeping). A type assertion, where meta.IsListType takes a
// global lock for every object decoded.
func isList(obj runtime.Object) bool {
	_, ok := obj.(metav1.ListInterface)
	return ok
}
