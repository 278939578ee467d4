package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// A silent watch, a lagging handler and the memory estimate reach the JSON
// under the report's documented names, and the table says them in words.
func TestReportFreshnessAndMemory(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	quiet := now.Add(-source.QuietWatchSilentAfter - 5*time.Second)
	snap := source.Informer{
		Name: "pods", Resource: "pods", Started: true, Synced: true,
		Reflector: source.Reflector{Watches: 3, WatchOpen: true, WatchSince: quiet.Add(-10 * time.Second), LastEventTime: quiet, LastHeard: quiet},
		Listeners: []source.Listener{{Name: "slow", Pending: 7, OldestPendingSince: now.Add(-42 * time.Second)}},
		Memory: source.Memory{
			Objects: 1000, Sampled: 64, BytesPerObject: 4000, EstimatedBytes: 4e6,
			ByField:               map[string]float64{source.FieldSpec: 3e6, source.FieldMetadata: 1e6},
			SavedByTransforms:     map[string]float64{source.TransformStripManagedFields: 31e6},
			WouldSaveByTransforms: map[string]float64{source.TransformStripLastApplied: 2e6},
			GoHeapBytes:           80e6,
		},
	}
	r := Build("kube", []source.Informer{snap}, nil, source.RingStats{}, nil, now)
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Informers []struct {
			Freshness map[string]any `json:"freshness"`
			Memory    struct {
				EstimatedBytes        float64            `json:"estimatedBytes"`
				BytesPerObject        float64            `json:"bytesPerObject"`
				ByField               map[string]float64 `json:"byField"`
				SavedByTransforms     map[string]float64 `json:"savedByTransforms"`
				WouldSaveByTransforms map[string]float64 `json:"wouldSaveByTransforms"`
			} `json:"memory"`
			Listeners []map[string]any `json:"listeners"`
		} `json:"informers"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	inf := doc.Informers[0]
	f := inf.Freshness
	if f["silent"] != true || f["watchRestarts"] != 2.0 || f["lastEventAgeSeconds"] != 620.0 || f["lastBookmarkAgeSeconds"] != nil || f["watchAgeSeconds"] != 630.0 || f["silentAfterSeconds"] != 615.0 {
		t.Errorf("freshness %v", f)
	}
	m := inf.Memory
	if m.EstimatedBytes != 4e6 || m.BytesPerObject != 4000 || m.ByField["spec"] != 3e6 ||
		m.SavedByTransforms["stripManagedFields"] != 31e6 || m.WouldSaveByTransforms["stripLastApplied"] != 2e6 {
		t.Errorf("memory %+v", m)
	}
	if got := inf.Listeners[0]["oldestPendingSeconds"]; got != 42.0 {
		t.Errorf("oldestPendingSeconds %v, want 42", got)
	}

	var table bytes.Buffer
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"SILENT: nothing from the server for 10m20s (more than the 10m15s a healthy watch can go without)",
		"memory: ~4.0 MB (4.0 kB per object: metadata 1.0 MB, spec 3.0 MB); Go heap 80 MB",
		"stripManagedFields: ~31 MB saved",
		"stripLastApplied is off: it would save ~2.0 MB",
		"in callback  behind",
		"42.0s",
	} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

// Before any object was sized the estimate is unknown: null in the JSON,
// which a script cannot read as 0 bytes, and said so in the table.
func TestReportMemoryUnknownIsNull(t *testing.T) {
	snap := source.Informer{Name: "configmaps", Resource: "configmaps", Synced: true, Store: source.Cache{Objects: 50000},
		Memory: source.Memory{Objects: 50000, GoHeapBytes: 80e6}}
	r := Build("kube", []source.Informer{snap}, nil, source.RingStats{}, nil, time.Now())
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Informers []struct {
			Memory map[string]any `json:"memory"`
		} `json:"informers"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Informers[0].Memory
	for _, k := range []string{"estimatedBytes", "bytesPerObject"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %t); want null before any object was sized", k, v, ok)
		}
	}
	var table bytes.Buffer
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "memory: no estimate yet") {
		t.Errorf("the table does not say there is no estimate yet:\n%s", table.String())
	}
}
