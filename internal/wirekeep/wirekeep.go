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

// Keeper remembers, once armed, the bytes of every single object its
// serializer decodes, until Take asks for them. Disarmed (the default), it
// costs one atomic load per decoded object.
// Locking: mu guards kept; armed is read without it.
type Keeper struct {
	armed atomic.Bool
	taken atomic.Uint64
	mu    sync.Mutex
	kept  map[runtime.Object][]byte
}

// Arm starts keeping bytes.
func (k *Keeper) Arm() { k.armed.Store(true) }

// Take returns the bytes obj was decoded from, and forgets them.
func (k *Keeper) Take(obj runtime.Object) ([]byte, bool) {
	if !k.armed.Load() {
		return nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	b, ok := k.kept[obj]
	if ok {
		delete(k.kept, obj)
		k.taken.Add(1)
	}
	return b, ok
}

// Stats says how many objects' bytes are kept and not yet taken, and how
// many were taken.
func (k *Keeper) Stats() (kept int, taken uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.kept), k.taken.Load()
}

// Forget drops what was kept and never taken, e.g. before a new stream.
func (k *Keeper) Forget() {
	k.mu.Lock()
	defer k.mu.Unlock()
	clear(k.kept)
}

func (k *Keeper) keep(obj runtime.Object, b []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.kept == nil || len(k.kept) >= maxKept {
		k.kept = make(map[runtime.Object][]byte)
	}
	k.kept[obj] = b
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
