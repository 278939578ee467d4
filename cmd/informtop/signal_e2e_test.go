package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// SIGTERM and SIGINT end the dashboard, every time: the terminal is
// restored and the exit code written. (Bubble Tea's own signal handler
// once raced the session's and hung the shutdown in 1 of 2 runs.)
func TestDashboardEndsOnSIGTERMAndSIGINT(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("this test drives the dashboard in tmux: install it (apt-get install tmux); .ci/run does")
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGTERM, syscall.SIGINT, syscall.SIGTERM, syscall.SIGTERM} {
		run := filepath.Join(dir, strconv.Itoa(i))
		if err := os.MkdirAll(run, 0o755); err != nil {
			t.Fatal(err)
		}
		tm := &tmux{t: t, socket: filepath.Join(run, "tmux.sock"), session: "sig"}
		exitFile, pidFile := filepath.Join(run, "exit-code"), filepath.Join(run, "pid")
		// exec keeps the shell's pid, so $$ is informtop's.
		cmd := fmt.Sprintf("sh -c 'echo $$ > %s; exec env XDG_CONFIG_HOME=%s KUBECONFIG=%s %s --demo'; echo $? > %s",
			pidFile, run, filepath.Join(run, "none"), bin, exitFile)
		tm.run("new-session", "-d", "-s", tm.session, "-x", "80", "-y", "24", cmd)
		t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
		tm.waitFor("the demo's dashboard", func(s string) bool { return strings.Contains(s, "Processor") })
		raw, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, sig); err != nil {
			t.Fatal(err)
		}
		err = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
			data, err := os.ReadFile(exitFile)
			return err == nil && strings.TrimSpace(string(data)) != "", nil
		})
		if err != nil {
			t.Fatalf("run %d: informtop did not end within 20 s of %s; the screen:\n%s", i, sig, tm.capture())
		}
	}
}
