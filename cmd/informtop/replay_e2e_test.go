package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayStalledHandlerInTmux records the stalled-listener scenario
// headless, then replays it in the dashboard: slow's backlog climbs at the
// recorded moment while fast and medium stay at 0, because its replayed
// callback takes as long as the stalled one did. A replay started with
// --step is paused and n steps one item.
func TestReplayStalledHandlerInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	rec := filepath.Join(dir, "stalled.rec.zst")
	// The stall begins about 5 s after the sync; 16 s records its start
	// and ten seconds of the backlog climbing.
	out, err := exec.Command(bin, "record", "--demo", "--scenario", "stalled-listener", "--seed", "3", "-o", rec, "--duration", "16s").CombinedOutput()
	if err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}

	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "replay"}
	exitFile := filepath.Join(dir, "exit-code")
	cmd := fmt.Sprintf("env XDG_CONFIG_HOME=%s %s replay %s; echo $? > %s", t.TempDir(), bin, rec, exitFile)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "100", "-y", "30", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	// The header names the file at once; what was recorded comes with the
	// first frame's notes, so wait for both rather than for the first paint.
	tm.waitFor("the replay's header saying what was recorded", func(s string) bool {
		return strings.Contains(s, "stalled.rec.zst") && strings.Contains(s, "demo · stalled-listener (seed 3)")
	})
	tm.keys("3")
	climbing := tm.waitFor("slow's backlog to climb", func(s string) bool { return slowPending(s) > 0 })
	before := slowPending(climbing)
	tm.waitFor("slow's backlog to grow while fast and medium are at 0", func(s string) bool {
		return slowPending(s) > before && pendingOf(s, "fast") == 0 && pendingOf(s, "medium") == 0
	})
	tm.keys("q")
	tm.waitExit(exitFile)

	step := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "step"}
	stepExit := filepath.Join(dir, "step-exit-code")
	step.run("new-session", "-d", "-s", step.session, "-x", "100", "-y", "30",
		fmt.Sprintf("env XDG_CONFIG_HOME=%s %s replay %s --step; echo $? > %s", t.TempDir(), bin, rec, stepExit))
	step.waitFor("the replay paused by you, its queue filling", func(s string) bool {
		return strings.Contains(s, "you paused") && strings.Contains(s, "PAUSED") && !strings.Contains(s, "depth 0 ")
	})
	step.keys("n")
	step.waitFor("one item stepped and narrated", func(s string) bool {
		return strings.Contains(s, "step 1 · pods · single step") && strings.Contains(s, "popped")
	})
	step.keys("q")
	step.waitExit(stepExit)
}
