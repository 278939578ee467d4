package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/internal/kubetest"
)

// eventRow is a row of the Events view: its time, then its type.
var eventRow = regexp.MustCompile(`^\s*\d\d:\d\d:\d\d\.\d{3} (\S+)\s*(.*)$`)

// The dashboard after a real 410 Gone, at 80×24: the API server dies
// under a synced configmaps informer, etcd's history is compacted and
// the server comes back, so the reflector's re-watch from its old
// resourceVersion is answered 410. Once it has listed again, the
// Pipeline counts one relist, the title says the watch is up, and the
// Events view shows the 410, then the relist, its list and a new watch,
// in that order.
func TestDashboardAfterA410Gone(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	c := kubetest.Start(t) // its own cluster: this test kills the API server and compacts etcd
	const ns = "gone"
	cs := clusterNamespace(t, c, ns)
	bg := context.Background()
	for i := range 3 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("x-%d", i)}, Data: map[string]string{"k": "v"}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "gone"}
	exitFile := filepath.Join(dir, "exit-code")
	cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s %s --kubeconfig %s -n %s -r configmaps; echo $? > %s",
		t.TempDir(), t.TempDir(), bin, c.Kubeconfig, ns, exitFile)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "80", "-y", "24", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	tm.waitFor("the synced configmaps informer", func(s string) bool { return strings.Contains(s, "✓ synced") })

	// A change the watch carries: a watch ended within a second of
	// opening, with no event, is one client-go answers by listing again
	// (a streamed list, which gets no 410) rather than watching again.
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(bg, "x-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["k"] = "w"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(bg, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("the update in the Indexer", func(s string) bool { return strings.Contains(s, "1 updated") })

	c.KillAPIServer(t)
	tm.waitFor("the watch down", func(s string) bool { return strings.Contains(s, "watch down") })
	c.CompactEtcd(t)
	c.StartAPIServer(t)
	tm.waitFor("the relist done and the watch up", func(s string) bool {
		title, _, _ := strings.Cut(s, "\n")
		return strings.Contains(s, "1 relist ") && strings.Contains(title, "watch up") && strings.Contains(title, "✓ synced")
	})

	tm.keys("5")
	screen := tm.waitFor("the 410 and the relist in the Events view", func(s string) bool {
		return strings.Contains(s, "410 Gon") && strings.Contains(s, "Relist")
	})
	var after []string // the rows from the 410 on
	for _, line := range strings.Split(screen, "\n") {
		m := eventRow.FindStringSubmatch(line)
		switch {
		case m == nil:
		case m[1] == "WatchError" && strings.Contains(m[2], "410 Gon"):
			after = []string{"410"}
		case after != nil:
			after = append(after, m[1])
		}
	}
	// In order, perhaps with others between (the watch's close, a bookmark).
	want := []string{"410", "Relist", "WatchOpen", "ListDone"}
	rest := want
	for _, row := range after {
		if len(rest) > 0 && row == rest[0] {
			rest = rest[1:]
		}
	}
	if len(rest) > 0 {
		t.Errorf("the Events view from the 410 on: %v, want %v in that order:\n%s", after, want, screen)
	}

	tm.keys("q")
	tm.waitExit(exitFile)
}
