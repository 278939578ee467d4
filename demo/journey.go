package demo

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// Step pops one queue item, as every local source does, and tells how the
// popped event travelled through the simulated API server first.
func (d *Demo) Step(informer string) (source.StepResult, error) {
	r, err := d.Source.Step(informer)
	if err == nil {
		r.Journey = d.journey(informer, r)
	}
	return r, err
}

// StepBatch pops one batch and tells the way of its first event.
func (d *Demo) StepBatch(informer string) (source.StepResult, error) {
	r, err := d.Source.StepBatch(informer)
	if err == nil {
		r.Journey = d.journey(informer, r)
	}
	return r, err
}

// journey is the server's part of a step's story: from etcd to the
// reflector for an event that came through a watch; how a listed or
// bookmarked item got there otherwise. Nil when the server no longer
// remembers the event.
func (d *Demo) journey(informer string, r source.StepResult) []string {
	inf := d.Informer(informer)
	if inf == nil || len(r.Deltas) == 0 || len(r.ResourceVersions) != len(r.Deltas) {
		return nil
	}
	first := r.Deltas[0]
	switch first {
	case cache.Replaced, cache.ReplacedAll:
		// A streamed list ends in the same Replace as a LIST; the
		// reflector's newest list says which it was.
		if inf.State().Reflector.ListStreamed {
			return []string{"streamed from the watch cache as an initial event of a WatchList (a watch with sendInitialEvents=true), which a bookmark ended: no LIST"}
		}
		return []string{"listed by the reflector's LIST, which reads etcd directly: no watch event, no watch cache"}
	case cache.Sync, cache.SyncAll:
		return []string{"a resync: the informer hands out again what its store holds; nothing came from the server"}
	case cache.Bookmark:
		return []string{"a bookmark the watch cache sent at resourceVersion " + r.ResourceVersions[0] +
			": it says every event up to there was dispatched, and carries no object"}
	}
	rv, err := strconv.ParseUint(r.ResourceVersions[0], 10, 64)
	if err != nil {
		return nil
	}
	// The cluster knows the informer's watches by its name (SetClient).
	j, ok := d.cluster.Journey(inf.Resource(), informer, rv)
	if !ok {
		return nil
	}
	if first == cache.Deleted && j.Type != watch.Deleted {
		// A tombstone carries the last version the informer saw, not the
		// delete, which never reached it.
		return []string{fmt.Sprintf("its delete never arrived: the relist no longer found %s, last seen at resourceVersion %d", r.Key, rv)}
	}
	out := j.Lines()
	out = append(out, fmt.Sprintf("reflector received %s %s", j.Type, r.Key))
	if more := len(r.Deltas) - 1; more > 0 {
		out = append(out, fmt.Sprintf("%s of this step took the same way", humanize.Plural(more, "more event")))
	}
	return out
}
