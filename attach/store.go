package attach

import (
	"context"
	"net/url"
	"sync/atomic"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
)

// Store implements source.Source: a reader of one informer's cache in
// the agent, nil before the first frame and for an informer the agent
// does not have. Its calls are HTTP requests; see storeReader.
func (s *Source) Store(informer string) source.StoreReader {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sn := range s.last.Snapshots {
		if sn.Name == informer {
			return &storeReader{s: s, informer: informer}
		}
	}
	return nil
}

// storeReader reads one informer's cache through the agent's store
// endpoints, one GET per call, each bounded by the source's timeout. A
// failed call reads as empty (Generation as the last one read, so a
// caller does not re-read entries that cannot come); nothing panics.
type storeReader struct {
	s        *Source
	informer string
	gen      atomic.Uint64 // newest generation read
}

var _ source.StoreReader = (*storeReader)(nil)

func (r *storeReader) query(kv ...string) url.Values {
	q := url.Values{"informer": {r.informer}}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

func (r *storeReader) Generation() uint64 {
	var g api.StoreGeneration
	if err := r.s.get(context.Background(), api.PathGeneration, r.query(), &g); err != nil {
		return r.gen.Load()
	}
	r.gen.Store(g.Generation)
	return g.Generation
}

func (r *storeReader) Entries() ([]source.Entry, uint64) {
	var e api.StoreEntries
	if err := r.s.get(context.Background(), api.PathEntries, r.query(), &e); err != nil {
		return nil, 0
	}
	r.gen.Store(e.Generation)
	return e.Entries, e.Generation
}

func (r *storeReader) Object(key string) (source.Object, bool) {
	var o source.Object
	if err := r.s.get(context.Background(), api.PathObject, r.query("key", key), &o); err != nil {
		return source.Object{}, false
	}
	return o, true
}

func (r *storeReader) index(kv ...string) []string {
	var ix api.StoreIndex
	if err := r.s.get(context.Background(), api.PathIndex, r.query(kv...), &ix); err != nil {
		return nil
	}
	return ix.Items
}

func (r *storeReader) IndexNames() []string { return r.index() }

func (r *storeReader) IndexValues(index string) []string { return r.index("index", index) }

func (r *storeReader) IndexKeys(index, value string) []string {
	return r.index("index", index, "value", value)
}
