package cluster

import (
	"fmt"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// traceKeep is how many recent events per resource remember their way
// through the server, for step narration.
const traceKeep = 4096

// trace is what the stages saw of one event. Guarded by Cluster.mu.
type trace struct {
	rv  uint64
	typ watch.EventType
	key string

	decoded  bool
	incoming int // events in the incoming buffer when it was taken, itself included

	appended                   bool
	windowOldest, windowNewest uint64

	watchers, blocked, terminated int

	// replays are the clients whose new watch got the event from the
	// window, each with the resourceVersion it watched from; a client's
	// latest replay is how the event reached it, as a re-watch only
	// replays what the client has not seen.
	replays []replay
}

type replay struct {
	client string
	from   uint64
}

// replayed notes that a watch of client from resourceVersion from got the
// event out of the window.
func (t *trace) replayed(client string, from uint64) {
	for i := range t.replays {
		if t.replays[i].client == client {
			t.replays[i].from = from
			return
		}
	}
	t.replays = append(t.replays, replay{client, from})
}

// traceRing keeps the newest traces of one resource, found by
// resourceVersion. Guarded by Cluster.mu.
type traceRing struct {
	buf  []*trace
	next int
	byRV map[uint64]*trace
}

func newTraceRing(n int) traceRing {
	return traceRing{buf: make([]*trace, n), byRV: make(map[uint64]*trace, n)}
}

func (r *traceRing) add(e event) *trace {
	if old := r.buf[r.next]; old != nil {
		delete(r.byRV, old.rv)
	}
	t := &trace{rv: e.rv, typ: e.typ, key: e.key}
	r.buf[r.next] = t
	r.next = (r.next + 1) % len(r.buf)
	r.byRV[e.rv] = t
	return t
}

// Journey is what the simulated API server's stages did with one event,
// from etcd to the watchers' buffers.
type Journey struct {
	Resource string
	RV       uint64
	Type     watch.EventType
	Key      string
	// Decoded: the storage watcher took it with Incoming events waiting
	// in its buffer of IncomingCap (itself included). False when nobody
	// watched, so it went straight into the watch cache.
	Decoded     bool
	Incoming    int
	IncomingCap int
	// Appended: the watch cache added it; its window was then servable
	// from WindowOldest to WindowNewest.
	Appended                   bool
	WindowOldest, WindowNewest uint64
	// Watchers it was dispatched to; Blocked of them had a full buffer,
	// and Terminated of those did not make room in time.
	Watchers, Blocked, Terminated int
	// Replayed: the client asked about missed the dispatch (its watch was
	// down, or had not started) and its new watch, from resourceVersion
	// ReplayedFrom, got the event out of the window.
	Replayed     bool
	ReplayedFrom uint64
}

// Journey returns the way one event of the resource took through the
// server to client (as set with ListerWatcher.SetClient; "" for none in
// particular), while the server still remembers it (its newest few
// thousand).
func (c *Cluster) Journey(resource, client string, rv uint64) (Journey, bool) {
	st, err := c.store(resource)
	if err != nil {
		return Journey{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := st.path.traces.byRV[rv]
	if !ok {
		return Journey{}, false
	}
	j := Journey{
		Resource: st.kind.resource, RV: t.rv, Type: t.typ, Key: t.key,
		Decoded: t.decoded, Incoming: t.incoming, IncomingCap: c.opts.StorageBuffer,
		Appended: t.appended, WindowOldest: t.windowOldest, WindowNewest: t.windowNewest,
		Watchers: t.watchers, Blocked: t.blocked, Terminated: t.terminated,
	}
	for _, r := range t.replays {
		if client != "" && r.client == client {
			j.Replayed, j.ReplayedFrom = true, r.from
		}
	}
	return j, true
}

// Lines tells the journey one stage per line, as far as it got.
func (j Journey) Lines() []string {
	out := []string{fmt.Sprintf("etcd revision %d: %s", j.RV, j.Type)}
	if j.Decoded {
		out = append(out, fmt.Sprintf("storage watcher decoded it (incoming %d/%d)", j.Incoming, j.IncomingCap))
	} else {
		out = append(out, "no watch open: straight into the watch cache")
	}
	if !j.Appended {
		return append(out, "still on its way to the watch cache")
	}
	out = append(out, fmt.Sprintf("watch cache appended it (window %d–%d)", j.WindowOldest, j.WindowNewest))
	if j.Watchers == 0 {
		out = append(out, "no watcher to dispatch it to: it waited in the window")
	} else {
		line := "dispatched to " + humanize.Plural(j.Watchers, "watcher")
		if j.Blocked > 0 {
			line += fmt.Sprintf(", %d with a full buffer", j.Blocked)
		}
		if j.Terminated > 0 {
			line += fmt.Sprintf(", %d terminated for not keeping up", j.Terminated)
		}
		out = append(out, line)
	}
	if j.Replayed {
		out = append(out, fmt.Sprintf("replayed from the window to the new watch from resourceVersion %d", j.ReplayedFrom))
	}
	return out
}
