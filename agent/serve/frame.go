package serve

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/informtop/informtop/agent/api"
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
	return api.FrameOf(h.name, h.src.Pull(cursor, limit))
}
