package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// TestEndToEndInTmux builds the real binary, runs the stalled-listener
// scenario in a detached tmux at 80x24 and checks what a person would see.
func TestEndToEndInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "e2e"}
	exitFile := filepath.Join(dir, "exit-code")
	// An empty config dir keeps a user's key map out of the test; the exit
	// code is written to a file so the clean exit can be checked.
	cmd := fmt.Sprintf("env XDG_CONFIG_HOME=%s KUBECONFIG=%s %s --demo --scenario stalled-listener; echo $? > %s",
		t.TempDir(), filepath.Join(dir, "no-kubeconfig"), bin, exitFile)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "80", "-y", "24", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	// 1. The pipeline view, the default.
	screen := tm.waitFor("the pipeline view", func(s string) bool {
		return strings.Contains(s, "API server") && strings.Contains(s, "Reflector") &&
			strings.Contains(s, "Queue") && strings.Contains(s, "Indexer") && strings.Contains(s, "Processor")
	})
	if !strings.Contains(screen, "demo") || !strings.Contains(screen, "slow") {
		t.Fatalf("pipeline view lacks the demo source or the listeners:\n%s", screen)
	}

	// 2. The listeners view: the stalled handler is highlighted and its
	// backlog grows between two captures.
	tm.keys("3")
	first := tm.waitFor("the stalled listener", func(s string) bool {
		return strings.Contains(s, "STALLED") && slowPending(s) > 0
	})
	before := slowPending(first)
	// fast and medium may hold the notification just handed to them at
	// any one instant; what matters is that they keep draining to 0 while
	// slow's backlog only grows. Were they held up by slow, this would
	// never be seen.
	second := tm.waitFor("slow's backlog to grow while fast and medium are at 0", func(s string) bool {
		return slowPending(s) > before && pendingOf(s, "fast") == 0 && pendingOf(s, "medium") == 0
	})
	if !strings.Contains(second, "⚠ slow") {
		t.Fatalf("stalled listener row is not marked:\n%s", second)
	}

	// 3. The store view filters with /.
	tm.keys("4")
	tm.waitFor("the store view", func(s string) bool { return strings.Contains(s, "objects") && strings.Contains(s, "KEY") })
	tm.keys("/")
	const query = "checkout/cart"
	tm.literal(query)
	// The filter is fuzzy: every row left must hold the query's letters in
	// order, and the cart pods must be among them.
	tm.waitFor("the filtered store", func(s string) bool {
		rows := tableRows(s)
		if len(rows) == 0 || !strings.Contains(s, "checkout/cart-") {
			return false
		}
		for _, r := range rows {
			if !subsequence(strings.Fields(r)[0], query) {
				return false
			}
		}
		return true
	})
	tm.keys("Escape")

	// 4. The help overlay.
	tm.keys("?")
	tm.waitFor("the help overlay", func(s string) bool {
		return strings.Contains(strings.ToLower(s), "pause") && strings.Contains(strings.ToLower(s), "step") &&
			strings.Contains(strings.ToLower(s), "quit")
	})
	tm.keys("Escape")

	// 5. A clean exit on q: the program ends with code 0.
	tm.keys("q")
	tm.waitExit(exitFile)
}

// buildInformtop builds the real binary into dir, as a user would run it.
func buildInformtop(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "informtop")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as `make build` does: see the Makefile
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// waitExit waits for the exit code the shell wrote to exitFile after the
// program ended, and fails unless it is 0.
func (tm *tmux) waitExit(exitFile string) {
	tm.t.Helper()
	var code string
	waitfor.Every(tm.t, 100*time.Millisecond, 15*time.Second, "informtop to exit after q", func() (bool, string) {
		data, _ := os.ReadFile(exitFile)
		if code = strings.TrimSpace(string(data)); code != "" {
			return true, ""
		}
		// Not tm.capture, which fails the test: the session ends as the
		// shell writes the file, perhaps between the read and this.
		screen, _ := exec.Command("tmux", "-S", tm.socket, "capture-pane", "-t", tm.session, "-p").CombinedOutput()
		return false, "the screen:\n" + string(screen)
	})
	if code != "0" {
		tm.t.Fatalf("informtop exited with code %s", code)
	}
}

type tmux struct {
	t       testing.TB
	socket  string
	session string
}

func (tm *tmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (tm *tmux) keys(keys ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", tm.session}, keys...)...)
	// A terminal cannot tell a lone Escape from the start of an escape
	// sequence until a moment passes; a person does not type that fast.
	// So this pause is a typing pace, not a wait on anything.
	time.Sleep(300 * time.Millisecond)
}

func (tm *tmux) literal(text string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", tm.session, "-l", "--", text)
}

func (tm *tmux) capture() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-t", tm.session, "-p")
}

// waitFor captures the screen until ok accepts it (30 s at most).
func (tm *tmux) waitFor(what string, ok func(string) bool) string {
	tm.t.Helper()
	var s string
	waitfor.Every(tm.t, 200*time.Millisecond, 30*time.Second, what, func() (bool, string) {
		s = tm.capture()
		return ok(s), "the screen:\n" + s
	})
	return s
}

var rowPending = regexp.MustCompile(`^\W*(\S+)\s+(\d[\d,]*)\s`)

// pendingOf reads the PENDING column of a listener's row, -1 if absent.
func pendingOf(screen, listener string) int {
	for _, line := range strings.Split(screen, "\n") {
		m := rowPending.FindStringSubmatch(line)
		if m != nil && m[1] == listener {
			n, err := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// subsequence reports whether the letters of q appear in s in order.
func subsequence(s, q string) bool {
	for _, r := range q {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return true
}

func slowPending(screen string) int { return pendingOf(screen, "slow") }

// tableRows returns the lines under the KEY header up to the footer.
func tableRows(screen string) []string {
	lines := strings.Split(screen, "\n")
	var rows []string
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "KEY"):
			in = true
		case in && strings.Contains(l, "/") && strings.Contains(l, "-"):
			rows = append(rows, l)
		}
	}
	return rows
}
