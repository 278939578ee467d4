package agent

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/source/local"
)

// serveFrame answers api.PathFrame: every informer's snapshot and the
// events from the cursor on.
func (h *handler) serveFrame(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var cursor uint64
	if s := q.Get("cursor"); s != "" {
		c, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("cursor must be a non-negative integer, not %q", s))
			return
		}
		cursor = c
	}
	limit := api.MaxEvents
	if s := q.Get("max"); s != "" {
		m, err := strconv.Atoi(s)
		if err != nil || m < 0 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("max must be a non-negative integer, not %q", s))
			return
		}
		if m > 0 && m < limit {
			limit = m
		}
	}
	writeJSON(w, h.frame(cursor, limit))
}

func (h *handler) frame(cursor uint64, limit int) api.Frame {
	f := api.Frame{Version: api.Version, Source: h.source, Taken: time.Now()}
	f.Snapshots = h.snapshots()
	evs, next, missed := h.events.since(h.current, cursor, limit)
	f.Events, f.Next, f.Missed = local.EventsOf(evs), next, missed
	f.EventStats = local.RingStatsOf(h.events.stats())
	if h.queues != nil {
		f.Workqueues = h.queues.Snapshot()
	}
	return f
}

// snapshots is every served informer's state, in the order served.
func (h *handler) snapshots() []source.Informer {
	v := h.current()
	out := make([]source.Informer, len(v.informers))
	for i, inf := range v.informers {
		out[i] = local.InformerOf(inf.Snapshot())
	}
	return out
}
