package serve

import (
	"net/http"
	"time"

	"github.com/informtop/informtop/agent/report"
)

// serveReport answers api.PathReport: the same report informtop --once
// --json prints, from one pull of the source, so a script needs only
// curl. It counts events but reads none.
func (h *handler) serveReport(w http.ResponseWriter, _ *http.Request) {
	f := h.src.Pull(noEvents, 1)
	writeJSON(w, report.Build("agent", f.Snapshots, f.Reasons, f.EventStats, f.Workqueues, time.Now()))
}
