package local

import (
	"maps"

	"k8s.io/apimachinery/pkg/api/meta"
)

// MutationLabel is the label a listener armed with MutateNext sets on the
// cached object it receives: the classic handler bug, writing to the
// informer's object instead of to a DeepCopy.
const MutationLabel = "touched"

// MutateNext arms the listener to change the next object with key that it
// receives, in place, by setting the label MutationLabel to "yes". It
// does so once; the change is to the shared cached object, which every
// other listener and the store see.
func (l *Listener) MutateNext(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mutateKey = key
}

// mutate changes obj in place when the listener was armed for key. It
// replaces the labels map rather than writing to it: the map may still be
// shared with an older version of the object.
func (l *Listener) mutate(key string, obj any) {
	l.mu.Lock()
	armed := l.mutateKey != "" && l.mutateKey == key
	if armed {
		l.mutateKey = ""
	}
	l.mu.Unlock()
	if !armed {
		return
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	labels := maps.Clone(m.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	labels[MutationLabel] = "yes"
	m.SetLabels(labels)
}

// carriesMutation reports whether obj has the label no API server wrote.
func carriesMutation(obj any) bool {
	m, err := meta.Accessor(obj)
	return err == nil && m.GetLabels()[MutationLabel] != ""
}
