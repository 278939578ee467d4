package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// agentListener is the one listener of the controller's agent at addr,
// as the dashboard gets it.
func agentListener(t *testing.T, addr string) source.Listener {
	t.Helper()
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	resp, err := http.Get(strings.TrimSuffix(addr, "/") + api.PathFrame)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var f api.Frame
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		t.Fatal(err)
	}
	if len(f.Snapshots) != 1 || len(f.Snapshots[0].Listeners) != 1 {
		t.Fatalf("the agent serves %+v; want one informer with one listener", f.Snapshots)
	}
	return f.Snapshots[0].Listeners[0]
}

// sample-controller's shape on a real API server: a client-go factory
// resyncing every 2 s, its handler stuck in the first object of the
// initial list. --once --fail-on-stall exits 5 once the call is older
// than asked, though the handler never syncs; the backlog counts the
// resyncs queued behind the stuck call, a whole resync at a time, and the
// resync the handler asked for is the factory's; released, the handler
// syncs, and "HasSynced at" is when it did, not when attach first looked.
func TestAttachToAResyncingControllerStuckInItsInitialList(t *testing.T) {
	const n = 30
	c := kubetest.Shared(t)
	ns := "resync-stuck"
	cs := clusterNamespace(t, c, ns)
	bg := context.Background()
	for i := range n {
		if _, err := cs.AppsV1().Deployments(ns).Create(bg, deployment(ns, fmt.Sprintf("web-%02d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	release := filepath.Join(t.TempDir(), "release")
	ctl := startController(t, c.Kubeconfig, ns, release, "127.0.0.1:0", "--resync", "2s")
	bin := buildInformtop(t, t.TempDir())

	// The handler never syncs while stuck: --once waits for it, and the
	// stall ends the wait.
	const timeout = 90 * time.Second
	code, stdout, stderr, took := informtop(t, bin, "attach", ctl.Addr(), "--once", "--json", "--fail-on-stall", "3s", "--timeout", timeout.String())
	if code != 5 || took >= timeout {
		t.Fatalf("attach --once --fail-on-stall 3s during a stall in the initial list: exit %d after %s; want 5 before --timeout %s\n%s\n%s", code, took, timeout, stdout, stderr)
	}
	if !strings.Contains(stderr, "handler main.(*Controller) has been in OnAdd of "+ns+"/web-") || !strings.Contains(stderr, "longer than --fail-on-stall 3s (exit 5)") {
		t.Errorf("stderr %q; want the stuck handler named", stderr)
	}

	ctx, cancel := context.WithTimeout(bg, 60*time.Second)
	defer cancel()
	var l source.Listener
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		l = agentListener(t, ctl.Addr())
		return l.Pending >= n-1+2*n && (l.Pending-(n-1))%n == 0, nil
	}); err != nil {
		t.Fatalf("the backlog reads %d; want the initial list less the stuck call (%d) and two resyncs of %d or more", l.Pending, n-1, n)
	}
	if l.RequestedResync != 2*time.Second || l.ResyncPeriod != 2*time.Second || l.Synced {
		t.Errorf("the stuck handler: resync requested %v, effective %v, synced %t; want the factory's 2s, not synced", l.RequestedResync, l.ResyncPeriod, l.Synced)
	}

	// Released, the handler syncs; wait for the controller to reconcile
	// everything, from its log alone, before looking again.
	released := time.Now()
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	reconciledRE := regexp.MustCompile(`"reconciled (` + ns + `/web-\d+)"`)
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		return len(reconciledKeys(ctl, reconciledRE)) == n, nil
	}); err != nil {
		t.Fatalf("%d of %d deployments reconciled", len(reconciledKeys(ctl, reconciledRE)), n)
	}
	looked := time.Now()
	l = agentListener(t, ctl.Addr())
	if !l.Synced || l.SyncedAt.Before(released) || !l.SyncedAt.Before(looked) {
		t.Errorf("synced %t, HasSynced at %s; want between the release (%s) and the first look after it (%s)",
			l.Synced, l.SyncedAt.Format(time.StampMilli), released.Format(time.StampMilli), looked.Format(time.StampMilli))
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		l = agentListener(t, ctl.Addr())
		return l.InCallback == "" && l.Pending == 0, nil
	}); err != nil {
		t.Fatalf("released, the handler reads %d pending, in %q; want it drained", l.Pending, l.InCallback)
	}
}
