package recording

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/source/local"
)

// Start begins recording every informer of src (a demo, a cluster: any
// source running its informers in this process) to path. h's Informers may
// already describe some informers by name (namespace, selectors,
// transforms: what only the caller knows); Start adds what src knows
// (resource, queue, listeners) and wraps each informer's ListerWatcher.
// Call it before src runs; Close the Writer once src has stopped.
func Start(path string, src *local.Source, h Header, opts ...Option) (*Writer, error) {
	infs := src.Informers()
	given := map[string]Informer{}
	for _, i := range h.Informers {
		given[i.Name] = i
	}
	h.Informers = nil
	lws := make([]cache.ListerWatcher, len(infs))
	for i, inf := range infs {
		// Learn what the informer's ListerWatcher tells the reflector
		// before anything records: the header is written first.
		err := inf.WrapListerWatcher(func(lw cache.ListerWatcher) cache.ListerWatcher {
			lws[i] = lw
			return lw
		})
		if err != nil {
			return nil, fmt.Errorf("cannot record %s: %w", inf.Name(), err)
		}
		hi := given[inf.Name()]
		hi.Name, hi.Resource, hi.Queue = inf.Name(), inf.Resource(), inf.Queue().String()
		hi.WatchList = WatchListAllowed(lws[i])
		hi.Listeners = nil
		for _, l := range src.Listeners(inf.Name()) {
			hi.Listeners = append(hi.Listeners, Listener{Name: l.Name(), Delay: l.Delay()})
		}
		h.Informers = append(h.Informers, hi)
	}
	w, err := Create(path, h, opts...)
	if err != nil {
		return nil, err
	}
	for _, inf := range infs {
		name := inf.Name()
		if err := inf.WrapListerWatcher(func(lw cache.ListerWatcher) cache.ListerWatcher { return Tee(lw, name, w) }); err != nil {
			_ = w.Close()
			return nil, fmt.Errorf("cannot record %s: %w", name, err)
		}
	}
	src.ObserveCalls(func(informer, listener string, c local.Call, took time.Duration) {
		w.Call(informer, listener, c.Callback, c.Key, c.ResourceVersion, took)
	})
	return w, nil
}
