package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// The fleet report lists processes worst first with what ranked each:
// the stalled handler's informer, listener and frame, its informers
// under their own names, and no callback name the series never gave.
func TestBuildFleetRanksAndNamesTheWorst(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	frame := &source.StackFrame{Function: "main.(*Controller).misbehave", File: "main.go", Line: 266}
	snaps := []source.Informer{
		{Name: "controllers · a:1 · deployments", Resource: "deployments", Synced: true, Started: true, Taken: now,
			Reflector: source.Reflector{WatchOpen: true, LastHeard: now, LastEventTime: now},
			Listeners: []source.Listener{{Name: "h", Synced: true}}},
		{Name: "controllers · b:1 · deployments", Resource: "deployments", Synced: true, Started: true, Taken: now,
			Reflector: source.Reflector{WatchOpen: true, LastHeard: now, LastEventTime: now},
			Listeners: []source.Listener{{Name: "h", Pending: 7, PendingEstimated: true, InCallback: source.CallbackUnknown,
				InCallbackSince: now.Add(-30 * time.Second), Frame: frame}}},
	}
	f := source.Frame{Snapshots: snaps, Processes: []source.Process{
		{Job: "controllers", Instance: "a:1", Up: true, Agent: "a:1", Informers: []string{snaps[0].Name}},
		{Job: "controllers", Instance: "b:1", Up: true, Agent: "b:1", Informers: []string{snaps[1].Name}},
	}, Status: source.Status{State: source.Live}}
	r := BuildFleet(f, now)
	if len(r.Processes) != 2 || r.Synced {
		t.Fatalf("%+v; want two processes, not all synced", r)
	}
	p := r.Processes[0]
	if p.Instance != "b:1" || p.State != source.Stalled || p.Synced || p.Worst == nil || p.Worst.Informer != "deployments" ||
		p.Worst.Listener != "h" || p.Worst.Seconds != 30 || p.Worst.Frame == nil || p.Worst.Frame.Line != 266 {
		t.Fatalf("first %+v (worst %+v); want b:1 stalled 30s in h of deployments at main.go:266", p, p.Worst)
	}
	if l := p.Informers[0].Listeners[0]; p.Informers[0].Name != "deployments" || !l.Stalled || l.InCallback != "" || l.Frame == nil {
		t.Errorf("its informer %+v; want deployments with h stalled, its frame, no callback name", p.Informers[0])
	}
	if ok := r.Processes[1]; ok.State != source.Healthy || ok.Reason != "" || ok.Worst != nil || !ok.Synced {
		t.Errorf("second %+v; want a:1 ok", ok)
	}
	var js bytes.Buffer
	if err := WriteFleetJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Processes []struct{ State string } `json:"processes"`
		Informers []struct {
			Name      string
			Listeners []struct {
				Name    string
				Stalled bool
			}
		} `json:"informers"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Processes[0].State != "stalled" || back.Processes[1].State != "ok" {
		t.Errorf("JSON states %+v (%v)\n%s", back, err, js.String())
	}
	// Every source's report has informers: the fleet's are every
	// process's, worst process first, named as the dashboard names them.
	if len(back.Informers) != 2 || back.Informers[0].Name != "controllers · b:1 · deployments" ||
		back.Informers[1].Name != "controllers · a:1 · deployments" || !back.Informers[0].Listeners[0].Stalled {
		t.Errorf("top-level informers %+v; want b:1's deployments (h stalled), then a:1's\n%s", back.Informers, js.String())
	}
	var tb bytes.Buffer
	if err := WriteFleetTable(&tb, r); err != nil {
		t.Fatal(err)
	}
	out := tb.String()
	if !strings.Contains(out, "controllers · b:1  stalled  deployments · h · 30s in main.(*Controller).misbehave (main.go:266)  ≥7") ||
		!strings.Contains(out, "handler h of deployments has been in a callback for 30s, stuck in main.(*Controller).misbehave (main.go:266)") {
		t.Errorf("table:\n%s", out)
	}
}

// Processes alike but for their cluster are two rows, two JSON processes
// and two sets of informers, each named after its cluster.
func TestBuildFleetTellsClustersApart(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var f source.Frame
	for _, c := range []string{"eu-1", "us-1"} {
		p := source.Process{Job: "c", Instance: "10.0.0.1:6060", Cluster: c, Up: true,
			Labels: map[string]string{"cluster": c, "namespace": "shop", "pod": "orders-0"}}
		inf := source.Informer{Name: p.Name() + " · pods", Resource: "pods", Synced: true, Started: true, Taken: now,
			Reflector: source.Reflector{WatchOpen: true, LastHeard: now, LastEventTime: now}}
		p.Informers = []string{inf.Name}
		f.Processes, f.Snapshots = append(f.Processes, p), append(f.Snapshots, inf)
	}
	r := BuildFleet(f, now)
	var js bytes.Buffer
	if err := WriteFleetJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Processes []struct{ Name, Cluster string } `json:"processes"`
		Informers []struct{ Name string }          `json:"informers"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Processes) != 2 ||
		back.Processes[0].Name != "eu-1/shop/orders-0" || back.Processes[0].Cluster != "eu-1" ||
		back.Processes[1].Name != "us-1/shop/orders-0" || back.Processes[1].Cluster != "us-1" ||
		back.Informers[0].Name != "eu-1/shop/orders-0 · pods" || back.Informers[1].Name != "us-1/shop/orders-0 · pods" {
		t.Errorf("JSON %+v (%v)\n%s", back, err, js.String())
	}
	var tb bytes.Buffer
	if err := WriteFleetTable(&tb, r); err != nil {
		t.Fatal(err)
	}
	if out := tb.String(); !strings.Contains(out, "\neu-1/shop/orders-0 ") || !strings.Contains(out, "\nus-1/shop/orders-0 ") {
		t.Errorf("table:\n%s", out)
	}
}
