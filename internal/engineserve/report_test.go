package engineserve

import (
	"github.com/informtop/informtop/agent/serve/servetest"
	"testing"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/engine"
)

// The agent answers the report of informtop --once --json itself: a script
// with curl sees the stuck listener, its callback and backlog, and that the
// whole is not synced.
func TestReportIsTheOnceReport(t *testing.T) {
	f := newFixture(t, 1024, engine.Options{})
	srv := server(t, serve.Options{}, f.pods, f.secrets)
	var r report.Report
	servetest.GetJSON(t, srv, api.PathReport, &r)
	if r.Source != "agent" || r.Synced || len(r.Informers) != 2 {
		t.Fatalf("report: source %q, synced %t, %d informers; want agent, not synced (a handler is stuck), 2", r.Source, r.Synced, len(r.Informers))
	}
	pods := r.Informers[0]
	if pods.Name != "pods" || len(pods.Listeners) != 1 {
		t.Fatalf("first informer %+v, want pods with one listener", pods)
	}
	l := pods.Listeners[0]
	snap := f.pods.Snapshot().Listeners[0]
	if l.Name != "blocked" || l.Pending != snap.Pending || l.Pending != 2 || l.InCallback != "OnAdd" || l.InCallbackKey == "" || l.Synced {
		t.Errorf("listener %+v, want blocked in OnAdd with 2 pending (snapshot: %d), not synced", l, snap.Pending)
	}
	if r.Informers[1].Name != "secrets" || !r.Informers[1].Synced || r.Informers[1].Store.Objects != 1 {
		t.Errorf("second informer %+v, want secrets synced with 1 object", r.Informers[1])
	}
}
