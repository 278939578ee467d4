package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/promtest"
)

// fleetJSON is the part of `informtop fleet --once --json` these tests read.
type fleetJSON struct {
	Source    string `json:"source"`
	Synced    bool   `json:"synced"`
	Processes []struct {
		Name   string            `json:"name"`
		Job    string            `json:"job"`
		Labels map[string]string `json:"labels"`
		Up     bool              `json:"up"`
		Agent  string            `json:"agent"`
		State  string            `json:"state"`
		Reason string            `json:"reason"`
		Worst  *struct {
			Informer string             `json:"informer"`
			Listener string             `json:"listener"`
			Frame    *source.StackFrame `json:"frame"`
		} `json:"worst"`
		Informers []struct {
			Name      string `json:"name"`
			Synced    bool   `json:"synced"`
			Listeners []struct {
				Name              string             `json:"name"`
				Pending           int                `json:"pending"`
				Stalled           bool               `json:"stalled"`
				InCallbackSeconds float64            `json:"inCallbackSeconds"`
				Frame             *source.StackFrame `json:"frame"`
			} `json:"listeners"`
		} `json:"informers"`
	} `json:"processes"`
	// Informers is every process's, as in every source's report.
	Informers []struct {
		Name string `json:"name"`
	} `json:"informers"`
}

// The fleet: two example controllers on a real kube-apiserver,
// one with its handler blocked, scraped by a real Prometheus. informtop
// fleet --once --json lists both, the blocked one first with its stalled
// listener and the user's function it is stuck in, the other ok; it exits
// 1 (the blocked handler never synced), 5 with --fail-on-stall.
func TestFleetListsTheStalledControllerFirst(t *testing.T) {
	c := kubetest.Shared(t)
	stuckNS, fineNS := "fleet-stuck", "fleet-fine"
	bg := context.Background()
	for _, ns := range []string{stuckNS, fineNS} {
		cs := clusterNamespace(t, c, ns)
		for i := range 5 {
			if _, err := cs.AppsV1().Deployments(ns).Create(bg, deployment(ns, fmt.Sprintf("web-%02d", i)), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The example blocks each callback until its release file exists: the
	// fine one's exists from the start.
	dir := t.TempDir()
	released := filepath.Join(dir, "released")
	if err := os.WriteFile(released, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	stuck := startController(t, c.Kubeconfig, stuckNS, filepath.Join(dir, "never"), "127.0.0.1:0")
	fine := startController(t, c.Kubeconfig, fineNS, released, "127.0.0.1:0")
	prom := promtest.Start(t, promtest.Config{Targets: []promtest.Target{
		{Job: "controllers", Addr: stuck.Addr(), Labels: map[string]string{"namespace": stuckNS}},
		{Job: "controllers", Addr: fine.Addr(), Labels: map[string]string{"namespace": fineNS}},
	}})
	bin := buildInformtop(t, t.TempDir())

	fleetOnce := func(extra ...string) (int, fleetJSON, string) {
		t.Helper()
		args := append([]string{"fleet", "--prometheus", prom.URL(), "--selector", `job="controllers"`, "--once", "--json", "--timeout", "30s"}, extra...)
		code, stdout, stderr, _ := informtop(t, bin, args...)
		var doc fleetJSON
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			if code == 2 && strings.Contains(stderr, "has no informtop_* series") {
				return code, doc, stderr // not scraped yet: the loop below asks again
			}
			t.Fatalf("fleet --once --json printed no JSON (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
		}
		return code, doc, stderr
	}
	// Prometheus scrapes every second; the agent names the frame once the
	// call has run 2 s. Wait until both are scraped and the frame is in.
	var (
		code   int
		doc    fleetJSON
		stderr string
	)
	// Asked at Prometheus' scrape interval: nothing changes sooner.
	waitfor.Every(t, time.Second, 2*time.Minute, "Prometheus to know both controllers and the stuck frame", func() (bool, string) {
		code, doc, stderr = fleetOnce()
		return len(doc.Processes) == 2 && len(doc.Processes[1].Informers) == 1 && doc.Processes[0].Worst != nil && doc.Processes[0].Worst.Frame != nil,
			fmt.Sprintf("exit %d, %+v\n%s", code, doc, stderr)
	})
	first, second := doc.Processes[0], doc.Processes[1]
	if doc.Source != "fleet" || first.Agent != stuck.Addr() || first.Labels["namespace"] != stuckNS || first.State != "stalled" || !first.Up {
		t.Fatalf("first: %+v; want the blocked controller (%s in %s), stalled", first, stuck.Addr(), stuckNS)
	}
	if w := first.Worst; w.Informer != "deployments" || w.Listener != "main.(*Controller)" || w.Frame.Function != "main.(*Controller).misbehave" || filepath.Base(w.Frame.File) != "main.go" {
		t.Errorf("the blocked controller's worst is %+v (frame %+v); want deployments · main.(*Controller) stuck in main.(*Controller).misbehave (main.go)", *w, *w.Frame)
	}
	if len(first.Informers) != 1 || len(first.Informers[0].Listeners) != 1 {
		t.Fatalf("the blocked controller's informers: %+v", first.Informers)
	}
	if l := first.Informers[0].Listeners[0]; !l.Stalled || l.InCallbackSeconds <= source.StallAfter.Seconds() || l.Frame == nil || l.Frame.Function != "main.(*Controller).misbehave" {
		t.Errorf("its listener %+v; want it stalled past %s, in main.(*Controller).misbehave", l, source.StallAfter)
	}
	if !strings.Contains(first.Reason, "main.(*Controller).misbehave") {
		t.Errorf("its reason %q does not name the frame", first.Reason)
	}
	if second.Agent != fine.Addr() || second.State != "ok" || !second.Up || !second.Informers[0].Synced || second.Worst != nil {
		t.Errorf("second: %+v; want the released controller (%s), ok", second, fine.Addr())
	}
	if len(doc.Informers) != 2 || doc.Informers[0].Name != first.Name+" · deployments" || doc.Informers[1].Name != second.Name+" · deployments" {
		t.Errorf("top-level informers %+v; want %q's deployments, then %q's", doc.Informers, first.Name, second.Name)
	}
	if code != 1 || doc.Synced || !strings.Contains(stderr, stuck.Addr()) {
		t.Errorf("exit %d, synced %t, stderr %q; want exit 1 naming the blocked controller, as attach --once exits while a handler has not synced", code, doc.Synced, stderr)
	}
	// client-go's own informers keep their queue and their listeners'
	// buffers to themselves: null with why, never a 0 nobody measured.
	_, stdout, _, _ := informtop(t, bin, "fleet", "--prometheus", prom.URL(), "--selector", `job="controllers"`, "--once", "--json", "--timeout", "30s")
	var clientGo struct {
		Informers []struct {
			Queue     *json.RawMessage `json:"queue"`
			Unknown   map[string]string
			Listeners []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(stdout), &clientGo); err != nil || len(clientGo.Informers) != 2 {
		t.Fatalf("fleet --once --json: %v\n%s", err, stdout)
	}
	for _, inf := range clientGo.Informers {
		if v, ok := inf.Listeners[0]["capacity"]; inf.Queue != nil || inf.Unknown["queue"] == "" || !ok || v != nil {
			t.Errorf("a client-go informer's queue %s and capacity %v (unknown %v); want both null with why\n%s", raw(inf.Queue), v, inf.Unknown, stdout)
		}
	}
	code, _, stderr = fleetOnce("--fail-on-stall", "1s")
	if code != 5 || !strings.Contains(stderr, "handler main.(*Controller) has been in a callback for ") || !strings.Contains(stderr, ", in main.(*Controller).misbehave (") {
		t.Errorf("--fail-on-stall 1s: exit %d, stderr %q; want 5 naming the stalled handler and its frame, no empty key", code, stderr)
	}
}
