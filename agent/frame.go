package agent

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/source"
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
	now := time.Now()
	f := api.Frame{Version: api.Version, Source: h.source, Taken: now}
	f.Snapshots, f.Reasons = h.snapshots(now)
	f.Events, f.Next, f.Missed = h.events.since(h.current, cursor, limit)
	f.EventStats = h.events.stats()
	if h.queues != nil {
		f.Workqueues = h.queues.Snapshot()
	}
	return f
}

// snapshots takes every served informer's snapshot, with why each one
// that has not synced has not (nil when all have).
func (h *handler) snapshots(now time.Time) ([]engine.Snapshot, source.Reasons) {
	v := h.current()
	snaps := make([]engine.Snapshot, 0, len(v.informers))
	var reasons source.Reasons
	for _, inf := range v.informers {
		s := inf.Snapshot()
		snaps = append(snaps, s)
		if reason := source.NotSyncedReason(s, now); reason != "" {
			if reasons == nil {
				reasons = source.Reasons{}
			}
			reasons[s.Name] = reason
		}
	}
	return snaps, reasons
}
