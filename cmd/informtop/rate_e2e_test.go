package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRateInTmux: in the dashboard, a workload the slow listener cannot
// take is said on screen rather than left to grow silently, + stops at
// the demo's maximum and says so, and q still ends the program cleanly.
func TestRateInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "rate"}
	exitFile := filepath.Join(dir, "exit-code")
	cmd := fmt.Sprintf("env XDG_CONFIG_HOME=%s KUBECONFIG=%s %s --demo --rate 2000; echo $? > %s",
		t.TempDir(), filepath.Join(dir, "no-kubeconfig"), bin, exitFile)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "160", "-y", "48", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	tm.waitFor("the warning that slow cannot keep up", func(s string) bool {
		return strings.Contains(s, "slow cannot keep up with 2,000 changes/s (pods gets ~500/s, it takes 50/s): its backlog and memory grow without bound")
	})
	tm.keys("+")
	tm.waitFor("the rate raised to the maximum", func(s string) bool {
		return strings.Contains(s, "workload: 5.0k changes/s") && strings.Contains(s, "medium and slow cannot keep up with 5,000 changes/s")
	})
	tm.keys("+")
	tm.waitFor("the maximum said", func(s string) bool {
		return strings.Contains(s, "the workload is at its maximum, 5,000 changes/s")
	})
	tm.keys("q")
	tm.waitExit(exitFile)
}
