package agent

import (
	"net/http"
	"time"

	"github.com/informtop/informtop/report"
	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/source/local"
)

// serveReport answers api.PathReport: the same report informtop --once
// --json prints, from the snapshots a frame carries, so a script needs
// only curl. It counts events but reads none.
func (h *handler) serveReport(w http.ResponseWriter, _ *http.Request) {
	now := time.Now()
	var queues []source.Workqueue
	if h.queues != nil {
		queues = h.queues.Snapshot()
	}
	writeJSON(w, report.Build("agent", h.snapshots(), nil, local.RingStatsOf(h.events.stats()), queues, now))
}
