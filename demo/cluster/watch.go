package cluster

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// watch serves one WATCH request of the ListerWatcher's kind through its
// filter. See the package documentation for the start-point rules.
func (c *Cluster) watch(ctx context.Context, lw *ListerWatcher, opts metav1.ListOptions) (watch.Interface, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !c.Available() {
		c.stats.refused.Add(1)
		return nil, errRefused(lw.kind, lw.filter.namespace, opts)
	}
	opts.Watch = true
	if err := validateOptions(opts, c.opts.WatchList); err != nil {
		return nil, c.countError(err)
	}
	req, err := parseFilter(lw.kind, "", opts.LabelSelector, opts.FieldSelector)
	if err != nil {
		return nil, c.countError(err)
	}
	from, err := parseRV(opts.ResourceVersion)
	if err != nil {
		return nil, c.countError(err)
	}
	st := c.stores[lw.kind]
	w := c.newWatcher(st, lw.filter.and(req), opts)
	w.client = lw.client

	c.mu.Lock()
	if !c.available {
		c.mu.Unlock()
		c.stats.refused.Add(1)
		return nil, errRefused(lw.kind, lw.filter.namespace, opts)
	}
	streaming := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	legacyInitial := opts.SendInitialEvents == nil && from == 0
	switch {
	case from > c.rv:
		w.fail(errTooLarge(from, c.rv))
	case streaming || legacyInitial:
		// Synthetic ADDED events for the current state; a streaming list
		// ends them with the bookmark that tells the client it has synced.
		for key, obj := range st.objects {
			if w.filter.matches(obj) {
				w.initial = append(w.initial, item{typ: watch.Added, key: key, obj: obj})
			}
		}
		w.toSort = len(w.initial)
		w.startRV = c.rv
		if streaming && w.bookmarks {
			w.initial = append(w.initial, item{typ: watch.Bookmark, rv: c.rv, initialEnd: true})
			w.bookmarked = true
		}
		if streaming {
			c.stats.watchListStreams.Add(1)
			st.path.watchLists.Add(1)
		}
	case from == 0:
		// sendInitialEvents=false from "now": nothing to replay.
		w.startRV = c.rv
	case from < st.path.cache.compacted:
		w.fail(errTooOld(from, st.path.cache.compacted))
	default:
		// What the watch cache holds after from; newer events are on
		// their way through the path and will be dispatched.
		for _, e := range st.path.cache.since(from) {
			if it, ok := w.translate(e); ok {
				w.initial = append(w.initial, it)
				if t := st.path.traces.byRV[e.rv]; t != nil && w.client != "" {
					t.replayed(w.client, from)
				}
			}
			w.startRV = e.rv
		}
		w.startRV = max(w.startRV, from)
	}
	if !w.finish {
		st.path.watcherIDs++
		w.id = st.path.watcherIDs
		st.watchers[w] = struct{}{}
		c.startPathLocked(st)
	}
	c.mu.Unlock()

	c.stats.watches.Add(1)
	c.stats.watchesOpen.Add(1)
	if w.finish {
		st.path.errorStreams.Add(1)
	}
	go w.run(ctx)
	return w, nil
}

// fail turns w into a stream that carries one ERROR event and ends, which is
// how the API server answers a watch it accepted but cannot serve.
func (w *watcher) fail(err error) {
	w.c.countError(err)
	st := statusOf(err)
	w.initial = []item{{typ: watch.Error, status: &st}}
	w.finish = true
}
