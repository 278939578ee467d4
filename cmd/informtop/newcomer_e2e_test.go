package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// TestNewcomerInTmux walks the demo as a newcomer did at 80×24: the burst
// scenario from start to drained, its notes in order and each only once
// its state is on screen; a k9s label selector in the Store; :q; and help
// at 60×20 saying that more follows.
func TestNewcomerInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "burst"}
	exitFile := filepath.Join(dir, "exit-code")
	cmd := fmt.Sprintf("env XDG_CONFIG_HOME=%s KUBECONFIG=%s %s --demo --scenario burst; echo $? > %s",
		t.TempDir(), filepath.Join(dir, "no-kubeconfig"), bin, exitFile)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "80", "-y", "24", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	// The notes, in order, on the Listeners view where the backlog shows.
	tm.waitFor("the intro note", func(s string) bool { return strings.Contains(s, "Burst: steady churn") })
	tm.keys("3")
	tm.waitFor("the burst queued", func(s string) bool { return strings.Contains(s, "1,000 updates to three hot pods arrived") })
	resumed := tm.waitFor("processing resumed with slow behind", func(s string) bool {
		return strings.Contains(s, "Processing resumed") && slowPending(s) > 0
	})
	if strings.Contains(resumed, "Every listener has caught up") {
		t.Fatalf("the drained note shows while processing has just resumed:\n%s", resumed)
	}
	waitfor.Every(t, 200*time.Millisecond, 120*time.Second, "the burst to drain", func() (bool, string) {
		s := tm.capture()
		if strings.Contains(s, "Every listener has caught up") {
			if p := slowPending(s); p != 0 || pendingOf(s, "fast") != 0 || pendingOf(s, "medium") != 0 {
				t.Fatalf("the drained note shows while a listener still owes %d:\n%s", p, s)
			}
			return true, ""
		}
		return false, "the screen:\n" + s
	})

	// A real label selector in the Store, as in k9s.
	tm.keys("4")
	tm.waitFor("the store view", func(s string) bool { return strings.Contains(s, "KEY") && strings.Contains(s, "LABELS") })
	tm.keys("/")
	tm.literal("-l app=cart")
	filtered := tm.waitFor("the label selector applied", func(s string) bool {
		// The whole selector typed, not a prefix such as "-l app".
		return strings.Contains(s, "/-l app=cart ") && strings.Contains(s, "label selector") && strings.Contains(s, "cart-")
	})
	for _, r := range tableRows(filtered) {
		if !strings.Contains(r, "app=cart") {
			t.Fatalf("a row without app=cart passed -l app=cart: %q\n%s", r, filtered)
		}
	}
	tm.keys("Enter")
	tm.keys(":")
	tm.literal("q")
	tm.keys("Enter")
	tm.waitExit(exitFile)

	// Help on a small terminal says that more follows and scrolls.
	small := &tmux{t: t, socket: tm.socket, session: "help"}
	small.run("new-session", "-d", "-s", small.session, "-x", "60", "-y", "20",
		fmt.Sprintf("env XDG_CONFIG_HOME=%s KUBECONFIG=%s %s --demo", t.TempDir(), filepath.Join(dir, "no-kubeconfig"), bin))
	small.waitFor("the dashboard", func(s string) bool { return strings.Contains(s, "Pipe") })
	small.keys("?")
	first := small.waitFor("help that says more follows", func(s string) bool { return strings.Contains(s, "more below") })
	small.keys("G")
	last := small.waitFor("help scrolled to its end", func(s string) bool { return !strings.Contains(s, "more below") && strings.Contains(s, "lines") })
	if first == last {
		t.Fatalf("help did not scroll:\n%s", last)
	}
}
