package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
)

// A report is synced only when every informer and every listener is, and
// carries the reason of each one that is not.
func TestBuildCarriesSyncAndReasons(t *testing.T) {
	now := time.Now()
	snaps := []source.Informer{
		{Name: "configmaps", Resource: "configmaps", QueueKind: source.RealFIFO, Synced: true, LastSyncResourceVersion: "12",
			Listeners: []source.Listener{{Name: "informtop", Synced: true}}},
		{Name: "pods", Resource: "pods", QueueKind: source.RealFIFO},
	}
	r := Build("kube", snaps, map[string]string{"pods": "denied: you may not list pods"}, source.RingStats{Emitted: 9}, nil, now)
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
	if ok := Build("demo", snaps[:1], nil, source.RingStats{}, nil, now); !ok.Synced {
		t.Error("a fully synced report says synced: false")
	}
}

// The controller's workqueues follow the informers: in the JSON under
// "workqueues" (absent when the source sees none), and one line each in
// the table.
func TestReportCarriesWorkqueues(t *testing.T) {
	queues := []source.Workqueue{{
		Name: "deployments", Depth: 2, Adds: 20, Retries: 1,
		QueueLatencyMean: 300 * time.Millisecond, QueueLatencyMax: 1234567 * time.Microsecond,
		WorkDurationMean: time.Millisecond, WorkDurationMax: 250 * time.Microsecond,
		LongestRunning: 2 * time.Second, UnfinishedWork: 3 * time.Second,
	}}
	r := Build("attach", nil, nil, source.RingStats{}, queues, time.Now())
	queues[0].Name = "scribbled"
	if len(r.Workqueues) != 1 || r.Workqueues[0].Name != "deployments" {
		t.Fatalf("report workqueues %+v, want its own copy", r.Workqueues)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Workqueues []map[string]any `json:"workqueues"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Workqueues) != 1 {
		t.Fatalf("JSON %s", js.String())
	}
	q := doc.Workqueues[0]
	for k, want := range map[string]any{"name": "deployments", "depth": 2.0, "adds": 20.0, "retries": 1.0,
		"queueLatencyMaxSeconds": 1.234567, "workDurationMaxSeconds": 0.00025, "longestRunningSeconds": 2.0, "unfinishedWorkSeconds": 3.0} {
		if q[k] != want {
			t.Errorf("JSON workqueue %s = %v, want %v", k, q[k], want)
		}
	}

	var table bytes.Buffer
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	const line = "workqueue deployments: depth 2, adds 20, retries 1, waited max 1.235s, work max 250µs, longest running 2s\n"
	if !strings.Contains(table.String(), line) {
		t.Errorf("table lacks %q:\n%s", line, table.String())
	}

	none := Build("demo", nil, nil, source.RingStats{}, nil, time.Now())
	js.Reset()
	table.Reset()
	if err := WriteJSON(&js, none); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&table, none); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), "workqueues") || strings.Contains(table.String(), "workqueue") {
		t.Errorf("a report without queues mentions them:\n%s\n%s", js.String(), table.String())
	}
}

// A list streamed as a WatchList is described as such, not as "0 pages".
func TestReportSaysAStreamedListWasStreamed(t *testing.T) {
	snaps := []source.Informer{
		{Name: "streamed", Reflector: source.Reflector{Lists: 1, ListStreamed: true}},
		{Name: "paged", Reflector: source.Reflector{Lists: 1, ListPages: 5}},
	}
	var table bytes.Buffer
	if err := WriteTable(&table, Build("demo", snaps, nil, source.RingStats{}, nil, time.Now())); err != nil {
		t.Fatal(err)
	}
	out := table.String()
	for _, want := range []string{"reflector: 1 list, streamed (WatchList), 0 relists", "reflector: 1 list (5 pages), 0 relists"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0 pages") {
		t.Errorf("a streamed list is described in pages:\n%s", out)
	}
}

// Text from the API server or an agent reaches the table escaped: an ESC
// in a watch error cannot clear the reader's screen, a newline cannot
// start a line of its own. The JSON keeps the text as it was (encoding/json
// escapes it).
func TestWriteTableEscapesServerText(t *testing.T) {
	snaps := []source.Informer{{
		Name: "pods\x1b]0;owned\x07", Resource: "pods", QueueKind: source.RealFIFO, LastSyncResourceVersion: "12\n34",
		Reflector: source.Reflector{Errors: 1, LastError: "watch stream: \x1b[2J boom"},
		Listeners: []source.Listener{{Name: "slow\tone",
			CacheMutations: 1, LastCacheMutation: &source.CacheMutation{Key: "default/web\u009b2J", Callback: "OnUpdate", Fields: []string{"metadata.labels[\x1b]"}}}},
	}}
	r := Build("kube", snaps, map[string]string{"pods\x1b]0;owned\x07": "denied:\x1b[31m no"}, source.RingStats{}, []source.Workqueue{{Name: "q\x1bc"}}, time.Now())
	r.SetVerify("pods\x1b]0;owned\x07", verify.Result{}, errors.New("listing at RV 5 failed: \x1b[2K"))
	var table bytes.Buffer
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	got := table.String()
	for _, want := range []string{
		`last error: watch stream: \x1b[2J boom`,
		`pods\x1b]0;owned\a (pods, RealFIFO)`,
		`resourceVersion: 12\n34`,
		`not synced: denied:\x1b[31m no`,
		`verify: could not verify: listing at RV 5 failed: \x1b[2K`,
		`slow\tone`,
		`last default/web\u009b2J in OnUpdate: metadata.labels[\x1b]`,
		`workqueue q\x1bc:`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	for i, r := range got {
		if r != '\n' && !strconv.IsPrint(r) {
			t.Fatalf("table has %U at byte %d:\n%q", r, i, got)
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Informers[0].Reflector.LastError != "watch stream: \x1b[2J boom" {
		t.Errorf("JSON changed the error: %q", back.Informers[0].Reflector.LastError)
	}
}
