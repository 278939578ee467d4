package cluster

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// store is the server state of one resource. Guarded by Cluster.mu.
type store struct {
	kind    *kind
	objects map[string]runtime.Object // key "ns/name" -> stored, immutable object

	// order holds every key once, in an order that depends only on the
	// sequence of writes (creates append, deletes swap the last key in), so
	// seeded random picks are reproducible without sorting.
	order []string
	pos   map[string]int

	hist     history // etcd's: exact-resourceVersion lists and continue tokens
	path     watchPath
	watchers map[*watcher]struct{}
	snaps    snapshotCache
}

func newStore(k *kind, historySize int) *store {
	return &store{
		kind:     k,
		objects:  make(map[string]runtime.Object),
		pos:      make(map[string]int),
		hist:     newHistory(historySize),
		path:     newWatchPath(historySize),
		watchers: make(map[*watcher]struct{}),
	}
}

func (s *store) put(key string, obj runtime.Object) {
	if _, ok := s.objects[key]; !ok {
		s.pos[key] = len(s.order)
		s.order = append(s.order, key)
	}
	s.objects[key] = obj
}

func (s *store) remove(key string) {
	i, ok := s.pos[key]
	if !ok {
		return
	}
	last := len(s.order) - 1
	s.order[i] = s.order[last]
	s.pos[s.order[i]] = i
	s.order = s.order[:last]
	delete(s.pos, key)
	delete(s.objects, key)
}
