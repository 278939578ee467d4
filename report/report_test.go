package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/instr"
	"github.com/informtop/informtop/engine/processor"
)

// A report is synced only when every informer and every listener is, and
// carries the reason of each one that is not.
func TestBuildCarriesSyncAndReasons(t *testing.T) {
	now := time.Now()
	snaps := []engine.Snapshot{
		{Name: "configmaps", Resource: "configmaps", QueueKind: engine.RealFIFO, Synced: true, LastSyncResourceVersion: "12",
			Listeners: []processor.ListenerStats{{Name: "informtop", Synced: true}}},
		{Name: "pods", Resource: "pods", QueueKind: engine.RealFIFO},
	}
	r := Build("kube", snaps, map[string]string{"pods": "denied: you may not list pods"}, instr.RingStats{Emitted: 9}, now)
	if r.Synced || r.Source != "kube" || len(r.Informers) != 2 || r.Events.Emitted != 9 {
		t.Fatalf("report %+v", r)
	}
	if r.Informers[0].NotSyncedReason != "" || r.Informers[1].NotSyncedReason != "denied: you may not list pods" {
		t.Errorf("reasons %q, %q", r.Informers[0].NotSyncedReason, r.Informers[1].NotSyncedReason)
	}
	var js, table bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	inf := doc["informers"].([]any)[1].(map[string]any)
	if inf["notSyncedReason"] != "denied: you may not list pods" || doc["synced"] != false {
		t.Errorf("JSON %s", js.String())
	}
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "not synced: denied: you may not list pods") {
		t.Errorf("table:\n%s", table.String())
	}
	if ok := Build("demo", snaps[:1], nil, instr.RingStats{}, now); !ok.Synced {
		t.Error("a fully synced report says synced: false")
	}
}
