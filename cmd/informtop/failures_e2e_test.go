package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
)

// retriesWithin reads "client-go retries within 12s" off the screen, in
// seconds; -1 when it is not there.
var retriesWithin = regexp.MustCompile(`retries within (\d+)s`)

// A k9s user meets a misspelt namespace and an outage in the dashboard,
// against a real API server, at 80×24 and 160×48: ":ns nope" is refused
// with a sentence and the informers stay where they were; the server
// stopped, the header says disconnected, when client-go retries and the
// key that retries now, which refuses while nothing answers; once the
// server is back, that key restarts the informers client-go's backoff
// still holds, and they sync.
func TestFailuresInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	c := kubetest.Start(t) // its own cluster: this test stops the API server
	seed(t, c, "outage")
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	tm := &tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), session: "failures"}
	exitFile, pidFile, stderr := filepath.Join(dir, "exit-code"), filepath.Join(dir, "pid"), filepath.Join(dir, "stderr")
	cmd := fmt.Sprintf("env HOME=%s XDG_CONFIG_HOME=%s sh -c 'echo $$ > %s; exec %s --kubeconfig %s -n outage -r configmaps,secrets 2>%s'; echo $? > %s",
		t.TempDir(), t.TempDir(), pidFile, bin, c.Kubeconfig, stderr, exitFile)
	tm.run("new-session", "-d", "-s", tm.session, "-x", "80", "-y", "24", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })

	tm.waitFor("both informers synced", func(s string) bool { return strings.Contains(s, "informers 2/2 synced") })
	tm.keys(":")
	tm.literal("ns nope")
	tm.keys("Enter")
	tm.waitFor("the refusal of a namespace that does not exist", func(s string) bool {
		return strings.Contains(s, "namespace nope does not exist")
	})
	tm.keys("4")
	tm.waitFor("the configmaps still watched in outage", func(s string) bool { return strings.Contains(s, "outage/x-0") })

	tm.run("resize-window", "-t", tm.session, "-x", "160", "-y", "48")
	tm.keys("1")
	c.StopAPIServer()
	tm.waitFor("the outage said, with when client-go retries and the key", func(s string) bool {
		return strings.Contains(s, "disconnected") && strings.Contains(s, "cannot reach the API server") &&
			strings.Contains(s, "client-go retries") && strings.Contains(s, "ctrl+r retries now")
	})
	tm.keys("C-r")
	tm.waitFor("a retry refused while nothing answers", func(s string) bool {
		return strings.Contains(s, "still does not answer") && strings.Contains(s, "nothing was restarted")
	})
	// Until client-go's backoff has grown (its waits doubling from 0.8 s),
	// so that coming back the informers still wait and the key is what
	// ends the wait.
	waitfor.Every(t, 200*time.Millisecond, 2*time.Minute, "client-go's backoff to say 15 s or more", func() (bool, string) {
		s := tm.capture()
		if m := retriesWithin.FindStringSubmatch(s); m != nil {
			if n, _ := strconv.Atoi(m[1]); n >= 15 {
				return true, ""
			}
		}
		return false, "the screen:\n" + s
	})
	c.StartAPIServer(t)
	tm.keys("C-r")
	tm.waitFor("the informers restarted at once", func(s string) bool {
		return strings.Contains(s, "restarted the list and watch of") && strings.Contains(s, "instead of after client-go's backoff")
	})
	tm.waitFor("both synced again, connected", func(s string) bool {
		return (strings.Contains(s, "informers 2/2 synced") || strings.Contains(s, "informers ✓configmaps ✓secrets")) && !strings.Contains(s, "disconnected")
	})
	tm.run("resize-window", "-t", tm.session, "-x", "80", "-y", "24")
	tm.waitFor("the synced header at 80 columns", func(s string) bool {
		return strings.Contains(s, "2/2 synced") && !strings.Contains(s, "disconnected")
	})
	tm.keys("q")
	exitedOrDump(t, tm, exitFile, pidFile, stderr)
}

// exitedOrDump is waitExit that, when the program does not end, has it
// print its goroutines (SIGQUIT) and shows them: what it waits for.
func exitedOrDump(t *testing.T, tm *tmux, exitFile, pidFile, stderr string) {
	t.Helper()
	var code string
	exited := func(context.Context) (bool, error) {
		data, _ := os.ReadFile(exitFile)
		code = strings.TrimSpace(string(data))
		return code != "", nil
	}
	// wait's own poll, not waitfor's: at the bound the test does not fail
	// yet, it first has the program say what it waits for.
	if wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 15*time.Second, true, exited) == nil {
		if code != "0" {
			out, _ := os.ReadFile(stderr)
			t.Fatalf("informtop exited with code %s:\n%s", code, out)
		}
		return
	}
	if data, err := os.ReadFile(pidFile); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGQUIT)
			// The runtime writes the goroutines to stderr and exits; then the
			// shell writes the exit file. Dumped or not by then, the test fails.
			_ = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 2*time.Second, true, exited)
		}
	}
	out, _ := os.ReadFile(stderr)
	t.Fatalf("informtop did not exit within 15 s of q; its goroutines:\n%s", out)
}
