package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/promtest"
)

// The fleet dashboard as an SRE of several clusters sees it, in tmux at
// 80×24, 120×30 and 160×48, the real binary reading a real Prometheus: one
// controller stuck in its handler, scraped under two cluster labels (two
// processes, named by their cluster), and a target nothing answers at.
// The one Prometheus cannot scrape ranks first; at 120 columns WORST names
// the informer, the listener and how long; at 80, names too long for their
// column end in "…" rather than losing their middle, and the header's
// stall banner keeps the process's start and the handler whole.
func TestFleetDashboardAt80And120Columns(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "fleet-columns"
	cs := clusterNamespace(t, c, ns)
	if _, err := cs.AppsV1().Deployments(ns).Create(t.Context(), deployment(ns, "web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stuck := startController(t, c.Kubeconfig, ns, filepath.Join(dir, "never"), "127.0.0.1:0")
	// A controller that goes away once scraped: Prometheus then cannot
	// scrape it (up 0), and the fleet lists it, down, for an hour.
	gone := startController(t, c.Kubeconfig, ns, filepath.Join(dir, "never"), "127.0.0.1:0")
	prom := promtest.Start(t, promtest.Config{Targets: []promtest.Target{
		{Job: "controllers", Addr: stuck.Addr(), Labels: map[string]string{"cluster": "eu-west-1"}},
		{Job: "controllers", Addr: stuck.Addr(), Labels: map[string]string{"cluster": "us-east-1"}},
		{Job: "gone", Addr: gone.Addr(), Labels: map[string]string{"cluster": "eu-west-1"}},
	}})
	bin := buildInformtop(t, dir)
	// Asked at Prometheus' scrape interval: nothing changes sooner.
	waitfor.Every(t, time.Second, 2*time.Minute, `Prometheus to scrape job="gone" up`, func() (bool, string) {
		code, stdout, stderr, _ := informtop(t, bin, "fleet", "--prometheus", prom.URL(), "--selector", `job="gone"`, "--once", "--json", "--timeout", "10s")
		return code != 2 && strings.Contains(stdout, `"up": true`), fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr)
	})
	if err := gone.Stop(); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for _, sz := range [][2]int{{80, 24}, {120, 30}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			tm := &tmux{t: t, socket: filepath.Join(dir, fmt.Sprintf("tmux-%d.sock", sz[0])), session: "fleet-columns"}
			cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s fleet --prometheus %s --query-interval 1s",
				home, home, bin, prom.URL())
			tm.run("new-session", "-d", "-s", tm.session, "-x", fmt.Sprint(sz[0]), "-y", fmt.Sprint(sz[1]), cmd)
			t.Cleanup(func() { tm.run("kill-server") })
			screen := tm.waitFor("three processes, the stall with its frame, one down", func(s string) bool {
				return strings.Contains(s, "3 controller processes") && strings.Count(s, "in misbehave") >= 2 && strings.Contains(s, "not scraped (up 0)")
			})
			t.Logf("at %dx%d:\n%s", sz[0], sz[1], screen)
			rows := strings.Split(screen[strings.Index(screen, "PROCESS"):], "\n")[1:4]
			if !strings.Contains(rows[0], " down ") || !strings.HasPrefix(rows[0], "eu-west-1/gone") {
				t.Errorf("first row %q; want the eu-west-1 controller that went away, down", rows[0])
			}
			// The same stall scraped twice: either may have been seen first.
			if a, b := rows[1], rows[2]; !(strings.HasPrefix(a, "eu-west-1/controllers") && strings.HasPrefix(b, "us-east-1/controllers") ||
				strings.HasPrefix(a, "us-east-1/controllers") && strings.HasPrefix(b, "eu-west-1/controllers")) ||
				!strings.Contains(a, " stalled ") || !strings.Contains(b, " stalled ") {
				t.Errorf("rows 2 and 3 %q, %q; want the stuck controller in eu-west-1 and in us-east-1, both stalled", a, b)
			}
			for i, r := range rows {
				state := map[bool]string{true: " down ", false: " stalled "}[i == 0]
				at := strings.Index(r, state)
				if at < 0 {
					continue // said above
				}
				if name := strings.TrimSpace(r[:at]); strings.Contains(strings.TrimSuffix(name, "…"), "…") {
					t.Errorf("row %q: the name is cut in its middle", r)
				}
			}
			// The header's stall banner keeps the handler whole and cuts, if
			// anything, the end of the process's name: one ellipsis.
			_, banner, _ := strings.Cut(strings.Split(screen, "\n")[1], "⚠ stalled: ")
			if process, handler, ok := strings.Cut(banner, " › "); !ok || !strings.HasPrefix(handler, "main.(*Controller)") ||
				strings.Count(banner, "…") > 1 || strings.Contains(strings.TrimSuffix(process, "…"), "…") || !strings.Contains(process, "-1/") {
				t.Errorf("at %d columns the stall banner is %q; want its process's start and the handler whole", sz[0], banner)
			}
			if sz[0] >= 120 && !strings.Contains(rows[1], "deployments · main.(*Controller) · ") {
				t.Errorf("at %d columns WORST %q lacks the informer and the listener", sz[0], rows[1])
			}
		})
	}
}
