package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// stuckJSON is the part of attach's report about a stalled listener.
type stuckJSON struct {
	Informers []struct {
		Name           string `json:"name"`
		Implementation string `json:"implementation"`
		Listeners      []struct {
			Name             string             `json:"name"`
			Pending          int                `json:"pending"`
			PendingEstimated bool               `json:"pendingEstimated"`
			InCallback       string             `json:"inCallback"`
			InCallbackKey    string             `json:"inCallbackKey"`
			Stalled          bool               `json:"stalled"`
			StalledSince     *time.Time         `json:"stalledSince"`
			Frame            *source.StackFrame `json:"frame"`
		} `json:"listeners"`
	} `json:"informers"`
}

// A controller-runtime manager whose create predicate hangs on one
// labelled ConfigMap, its informers client-go's own (one line in its
// cache options): attach names the user's function and line, the
// callback, the object, since when, and the ConfigMaps created behind it
// (a lower bound: client-go's queue cannot be read); --fail-on-stall fails
// during the stall and passes after it; the release logs Recovered with
// the call's duration. On every controller-runtime the agent supports
// (v0.23, v0.24, v0.25, with their client-go).
func TestAttachNamesTheStuckCodeOfAManager(t *testing.T) {
	c := kubetest.Shared(t)
	bin := buildInformtop(t, t.TempDir())
	for _, minor := range examplectl.Versions {
		t.Run("kubernetes-"+minor, func(t *testing.T) { stuckCodeOfAManager(t, c, bin, minor) })
	}
}

// stuckCodeOfAManager is TestAttachNamesTheStuckCodeOfAManager with the
// manager built with client-go and controller-runtime of Kubernetes minor.
func stuckCodeOfAManager(t *testing.T, c *kubetest.Cluster, bin, minor string) {
	ns := "stuck-" + strings.ReplaceAll(minor, ".", "-")
	cs := clusterNamespace(t, c, ns)
	release := filepath.Join(t.TempDir(), "release")
	ctl := startCRExampleAt(t, minor, c.Kubeconfig, ns, "--block-labelled", "--release-file", release)
	bg := context.Background()
	createCM := func(name string, labels map[string]string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The informer exists once the controller started: wait for it
	// to sync before the held ConfigMap comes.
	waitAttach(t, bin, ctl.Addr(), "the configmaps informer synced", func(code int, doc stuckJSON) bool {
		return code == 0 && len(doc.Informers) == 1 && len(doc.Informers[0].Listeners) == 1
	})
	createCM("held", map[string]string{"informtop.example/block": "true"})
	const behind = 5
	for i := range behind {
		createCM(fmt.Sprintf("behind-%d", i), nil)
	}

	doc := waitAttach(t, bin, ctl.Addr(), "the stuck frame, with every ConfigMap behind it pending", func(_ int, doc stuckJSON) bool {
		l := doc.Informers[0].Listeners[0]
		return l.Frame != nil && l.Pending == behind
	})
	inf := doc.Informers[0]
	l := inf.Listeners[0]
	if inf.Name != "configmaps" || inf.Implementation != source.ImplementationClientGo || l.Name != "controller-runtime/configmaps" {
		t.Errorf("informer %q (%s), listener %q; want configmaps (%s), controller-runtime/configmaps", inf.Name, inf.Implementation, l.Name, source.ImplementationClientGo)
	}
	if l.Frame.Function != "main.blockIfLabelled" || filepath.Base(l.Frame.File) != "main.go" || l.Frame.Line == 0 {
		t.Errorf("stuck in %+v; want main.blockIfLabelled in the example's main.go", *l.Frame)
	}
	if l.InCallback != source.CallbackAdd || l.InCallbackKey != ns+"/held" || !l.Stalled || l.StalledSince == nil {
		t.Errorf("in %s of %q, stalled %t since %v; want a stalled OnAdd of %s/held", l.InCallback, l.InCallbackKey, l.Stalled, l.StalledSince, ns)
	}
	if !l.PendingEstimated {
		t.Error("pendingEstimated false for client-go's informer, whose queue cannot be read")
	}

	// --fail-on-stall 5s: exit 5 once the call is older than 5s.
	waitfor.Every(t, 200*time.Millisecond, time.Until(l.StalledSince.Add(30*time.Second)), "attach --fail-on-stall 5s to exit 5 during a stall", func() (bool, string) {
		code, stdout, stderr, _ := informtop(t, bin, "attach", ctl.Addr(), "--once", "--json", "--fail-on-stall", "5s", "--timeout", "10s")
		if code != 0 && code != 5 {
			t.Fatalf("attach --fail-on-stall 5s during a stall: exit %d; want 5\n%s\n%s", code, stdout, stderr)
		}
		return code == 5, fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr)
	})

	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitAttach(t, bin, ctl.Addr(), "the backlog drained", func(code int, doc stuckJSON) bool {
		l := doc.Informers[0].Listeners[0]
		return code == 0 && l.InCallback == "" && l.Pending == 0 && !l.Stalled
	})
	if code, stdout, stderr, _ := informtop(t, bin, "attach", ctl.Addr(), "--once", "--json", "--fail-on-stall", "5s", "--timeout", "10s"); code != 0 {
		t.Fatalf("attach --fail-on-stall 5s after the release: exit %d; want 0\n%s\n%s", code, stdout, stderr)
	}
	rec := agentEvent(t, ctl.Addr(), source.EventRecovered)
	if rec == nil || rec.Key != ns+"/held" || rec.Duration < 5*time.Second || !strings.Contains(rec.Frame, "main.blockIfLabelled (main.go:") {
		t.Errorf("Recovered event %+v; want %s/held after more than 5s in main.blockIfLabelled", rec, ns)
	}
}

// waitAttach runs attach --once --json until ok says its report is what
// the test waits for, and returns that report.
func waitAttach(t *testing.T, bin, addr, what string, ok func(code int, doc stuckJSON) bool) stuckJSON {
	t.Helper()
	var doc stuckJSON
	waitfor.Every(t, 200*time.Millisecond, 60*time.Second, what, func() (bool, string) {
		code, stdout, stderr, _ := informtop(t, bin, "attach", addr, "--once", "--json", "--timeout", "10s")
		doc = stuckJSON{}
		err := json.Unmarshal([]byte(stdout), &doc)
		return err == nil && len(doc.Informers) > 0 && len(doc.Informers[0].Listeners) > 0 && ok(code, doc),
			fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr)
	})
	return doc
}

// agentEvent is the newest event of type typ the agent at addr holds.
func agentEvent(t *testing.T, addr string, typ source.EventType) *source.Event {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(addr, "/") + api.PathFrame)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var f api.Frame
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		t.Fatal(err)
	}
	var found *source.Event
	for i := range f.Events {
		if f.Events[i].Type == typ {
			found = &f.Events[i]
		}
	}
	return found
}
