package agent

import (
	"net/http"
	"time"

	"github.com/informtop/informtop/report"
)

// serveReport answers api.PathReport: the same report informtop --once
// --json prints, built from one frame, so a script needs only curl.
func (h *handler) serveReport(w http.ResponseWriter, _ *http.Request) {
	f := h.frame(0, 1) // the report counts events; it lists none
	writeJSON(w, report.Build("agent", f.Snapshots, f.Reasons, f.EventStats, f.Workqueues, time.Now()))
}
