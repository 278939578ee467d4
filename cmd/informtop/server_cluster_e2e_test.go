package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/internal/kubetest"
)

// `informtop --once --json` as an admin: the report waits for the first
// read of the API server's /metrics, so every informer's "server" has the
// watch cache's figures, not "reading…". With --server-metrics=false
// /metrics is never asked for and "server" says it was turned off. Both
// runs go through a proxy that counts what informtop asks for.
func TestOnceServerFigures(t *testing.T) {
	c := kubetest.Shared(t)
	ns := "server-figures"
	cs := clusterNamespace(t, c, ns)
	for i := range 2 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i)}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	proxy := c.DropProxy(t)
	bin := buildInformtop(t, t.TempDir())
	// --watch-list off: the proxy reads watch streams as JSON, and the
	// server gzips streamed lists (the client accepts gzip), which the
	// proxy then cuts short.
	run := func(args ...string) clusterJSON {
		t.Helper()
		args = append([]string{"--kubeconfig", proxy.Kubeconfig, "-n", ns, "-r", "configmaps,pods", "--once", "--json", "--timeout", "30s", "--watch-list", "off"}, args...)
		code, stdout, stderr, took := informtop(t, bin, args...)
		t.Logf("%v took %s", args, took)
		var doc clusterJSON
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.Informers) != 2 {
			t.Fatalf("%v: exit %d, %v; stderr: %s\n%s", args, code, err, stderr, stdout)
		}
		return doc
	}

	doc := run()
	scrapes := proxy.Requests("GET", "/metrics")
	if scrapes == 0 {
		t.Fatal("the proxy saw no GET /metrics: it does not count what informtop asks")
	}
	for _, inf := range doc.Informers {
		srv := inf.Server
		if string(srv["available"]) != "true" {
			t.Errorf("%s: server %s, want the figures", inf.Name, srv)
			continue
		}
		for _, key := range []string{"watchCacheResourceVersion", "watchCacheCapacity", "eventsDispatched", "terminatedWatchers", "from", "taken"} {
			if _, ok := srv[key]; !ok {
				t.Errorf("%s: server lacks %q: %s", inf.Name, key, srv)
			}
		}
		var rv string
		if json.Unmarshal(srv["watchCacheResourceVersion"], &rv) != nil || rv == "" || rv == "0" {
			t.Errorf("%s: watch cache at RV %s", inf.Name, srv["watchCacheResourceVersion"])
		}
		if _, ok := srv["reason"]; ok {
			t.Errorf("%s: available figures with a reason: %s", inf.Name, srv)
		}
	}

	off := run("--server-metrics=false")
	if n := proxy.Requests("GET", "/metrics"); n != scrapes {
		t.Errorf("with --server-metrics=false informtop asked for /metrics %d times", n-scrapes)
	}
	for _, inf := range off.Informers {
		var reason string
		if len(inf.Server) != 2 || string(inf.Server["available"]) != "false" || json.Unmarshal(inf.Server["reason"], &reason) != nil ||
			!strings.Contains(reason, "--server-metrics=false") {
			t.Errorf("%s with --server-metrics=false: server %s, want only available false and why", inf.Name, inf.Server)
		}
	}
}
