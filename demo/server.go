package demo

import (
	"strconv"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
)

// serverStats is the simulated API server's side of every informer's
// watch: what a real cluster's /metrics would say about the resource, and
// the stages of its watch path, which no real server exports.
func (d *Demo) serverStats() map[string]source.ServerStats {
	now := time.Now()
	out := map[string]source.ServerStats{}
	byResource := map[string]source.ServerStats{} // informers of one resource share its figures
	for _, inf := range d.Informers() {
		if st, ok := byResource[inf.Resource()]; ok {
			out[inf.Name()] = st
			continue
		}
		p, ok := d.cluster.WatchPath(inf.Resource())
		if !ok {
			continue
		}
		st := source.ServerStats{
			Available:                  true,
			From:                       "the demo's simulated API server",
			WatchCacheResourceVersion:  strconv.FormatUint(p.ResourceVersion, 10),
			WatchCacheCapacity:         float64(p.Cache.Capacity),
			EventsReceived:             p.Received,
			EventsDispatched:           p.Dispatched,
			WatchEventsSent:            p.Sent,
			TerminatedWatchers:         p.Terminated,
			DispatchLatencyMeanSeconds: p.DispatchMean.Seconds(),
			// The simulated server reads every LIST from storage, as with
			// the watch cache off, so that its pages show.
			ListsFromStorage: p.Lists,
			WatchLists:       p.WatchLists,
			Taken:            now,
			Path:             watchPath(p),
		}
		byResource[inf.Resource()], out[inf.Name()] = st, st
	}
	return out
}

func watchPath(p cluster.PathStats) *source.WatchPath {
	out := &source.WatchPath{
		EtcdRevision:   p.EtcdRevision,
		EtcdPending:    p.EtcdPending,
		Incoming:       source.Buffer(p.Incoming),
		Outgoing:       source.Buffer(p.Outgoing),
		CacherIncoming: source.Buffer(p.CacherIncoming),
		Decoded:        p.Decoded,
		Cache:          source.WatchCache(p.Cache),
		BookmarksSent:  p.Bookmarks,
		ErrorStreams:   p.ErrorStreams,
		BookmarkEvery:  p.BookmarkFrequency,
		RealBookmarks:  cluster.DefaultBookmarkFrequency,
	}
	for _, w := range p.Watchers {
		out.Watchers = append(out.Watchers, source.WatcherBuffer{
			ID: w.ID, Client: w.Client, Buffer: source.Buffer(w.Buffer),
			Sent: w.Sent, Bookmarks: w.Bookmarks, Blocked: w.Blocked,
		})
	}
	return out
}
