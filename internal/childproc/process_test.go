package childproc

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// A server that never stops on SIGTERM is killed after the grace period,
// reaped, and its log stays readable for the failure message.
func TestStopKillsWhatIgnoresTerm(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	p, err := Start("stubborn", "/bin/sh", log, []string{"-c", `trap "" TERM; echo listening; while :; do sleep 1; done`})
	if err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "the child to log that it listens", func() bool { return p.LogContains("listening") },
		func() string { return "its state is " + p.State() })
	if p.Exited() || p.State() != "running" {
		t.Fatalf("state %q before Stop", p.State())
	}
	p.Stop(100 * time.Millisecond)
	if !p.Exited() || !strings.Contains(p.State(), "killed") {
		t.Fatalf("after Stop: exited %v, state %q; want killed", p.Exited(), p.State())
	}
	if got := p.Tail(5); got != "listening" {
		t.Fatalf("Tail = %q", got)
	}
	p.Stop(time.Second) // again: returns at once
}

// WaitReady gives up as soon as the server exits, with its log's end;
// Wait then says how it ended.
func TestWaitReadyReportsAnExit(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	p, err := Start("broken", "/bin/sh", log, []string{"-c", "echo bad flag >&2; exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	client := &http.Client{Timeout: time.Second}
	err = WaitReady(p, client, "http://127.0.0.1:1/ready", "", time.Minute)
	if err == nil || !strings.Contains(err.Error(), "broken exited before it was ready") || !strings.Contains(err.Error(), "bad flag") {
		t.Fatalf("WaitReady = %v", err)
	}
	if err := p.Wait(); err == nil || err.Error() != "exit status 3" {
		t.Fatalf("Wait = %v, want exit status 3", err)
	}
}

// StartEnv's entries reach the child and win over the test binary's own.
func TestStartEnvOverrides(t *testing.T) {
	t.Setenv("CHILDPROC_TEST_VAR", "parent")
	log := filepath.Join(t.TempDir(), "log")
	p, err := StartEnv("env", "/bin/sh", log, []string{"-c", `echo "$CHILDPROC_TEST_VAR $HOME"`},
		[]string{"CHILDPROC_TEST_VAR=child"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if got, want := p.Tail(1), "child "+os.Getenv("HOME"); got != want {
		t.Fatalf("the child printed %q, want %q", got, want)
	}
}
