package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerSideInTmux looks at the demo's API server side as a learner
// does: at 160×48 the watch path's stages above the reflector with live
// figures; at 80×24 folded into one line that e expands; and a step that
// tells the popped event's way from etcd to the handler.
func TestServerSideInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	socket := filepath.Join(dir, "tmux.sock")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", socket, "kill-server").Run() })
	demo := func(session string, w, h int, args ...string) *tmux {
		tm := &tmux{t: t, socket: socket, session: session}
		tm.run("new-session", "-d", "-s", session, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h),
			fmt.Sprintf("env XDG_CONFIG_HOME=%s KUBECONFIG=%s %s --demo --seed 7 %s", t.TempDir(), filepath.Join(dir, "no-kubeconfig"), bin, strings.Join(args, " ")))
		return tm
	}

	// Why a slow client loses its watch: the watch cache waits on its full
	// buffer, then terminates it.
	slow := demo("slow", 160, 48, "--scenario", "slow-watcher")
	blocked := slow.waitFor("a watcher with a full buffer", func(s string) bool { return strings.Contains(s, "full, terminating unless it drains") })
	if !strings.Contains(blocked, "⚠ #1 pods") {
		t.Fatalf("the blocked watcher is not flagged with its client:\n%s", blocked)
	}
	slow.waitFor("the terminated watcher counted", func(s string) bool { return strings.Contains(s, "1 terminated (too slow)") })
	// The next session opens before this one closes: closing the last
	// session ends the tmux server, and a session opened on the socket
	// while it is ending fails ("server exited unexpectedly").
	large := demo("large", 160, 48)
	slow.run("kill-session", "-t", "slow")
	screen := large.waitFor("the server's stages with a watcher", func(s string) bool {
		return strings.Contains(s, "#1 pods") && strings.Contains(s, "decoded")
	})
	order := []string{"etcd        revision", "Storage     etcd3 watcher: incoming", "Watch cache window RV", "Watchers    cacher incoming", "API server", "Reflector", "Queue"}
	if !inOrder(screen, order) {
		t.Fatalf("the stages are not drawn in the order an event travels them (%q):\n%s", order, screen)
	}

	small := demo("small", 80, 24)
	folded := small.waitFor("the folded server side", func(s string) bool { return strings.Contains(s, "Server side ") })
	// Folded, each channel keeps its label and its fill.
	if strings.Contains(folded, "Watch cache") || !strings.Contains(folded, "e expand server side") ||
		!strings.Contains(folded, "watcher in ") || !strings.Contains(folded, " result ") || !strings.Contains(folded, "cacher in") {
		t.Fatalf("at 80×24 the server side should be one line that e expands:\n%s", folded)
	}
	small.keys("e")
	expanded := small.waitFor("the expanded server side", func(s string) bool { return strings.Contains(s, "Watch cache") })
	if !inOrder(expanded, []string{"etcd", "Storage", "Watch cache", "Watchers", "API server", "Reflector"}) || !strings.Contains(expanded, "slow ") {
		t.Fatalf("expanded at 80×24, the stages or the listeners are missing:\n%s", expanded)
	}
	small.keys("e")
	small.waitFor("folded again", func(s string) bool { return strings.Contains(s, "Server side ") && !strings.Contains(s, "Watch cache") })

	// Pause, then step until a watched event (not a listed one) is popped.
	small.keys("Space")
	small.waitFor("paused", func(s string) bool { return strings.Contains(s, "you paused") })
	for range 20 {
		small.keys("n")
		s := small.capture()
		// The journey runs on over the panel's lines: read it as one text.
		flat := strings.Join(strings.Fields(strings.ReplaceAll(s, "│", " ")), " ")
		if strings.Contains(flat, "etcd revision") && strings.Contains(flat, "storage watcher decoded it") {
			// Dispatched to the watch, or, had it been down, replayed
			// from the window to the new one.
			reached := "dispatched to"
			if !strings.Contains(flat, reached) {
				reached = "replayed from the window"
			}
			if !inOrder(flat, []string{"server etcd revision", "storage watcher decoded it", "watch cache appended it", reached, "reflector received", "popped", "notified"}) {
				t.Fatalf("the step narration does not follow the event from etcd through the watch cache and the reflector to the listeners:\n%s", s)
			}
			return
		}
	}
	t.Fatalf("twenty steps and none narrated a watched event's way through the server:\n%s", small.capture())
}

// inOrder reports whether each of parts occurs in s after the one before.
func inOrder(s string, parts []string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
