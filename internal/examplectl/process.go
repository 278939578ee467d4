package examplectl

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/internal/childproc"
)

const (
	// StopGrace bounds how long an example may take to exit after SIGTERM
	// before it gets SIGKILL. The examples exit soon after SIGTERM, their
	// handler blocked or not; the bound keeps a hang from outlasting the
	// test.
	StopGrace = 60 * time.Second
	// startTimeout bounds how long an example may take to print its agent's
	// address: seconds usually, far more on a loaded 2-core machine.
	startTimeout = 90 * time.Second
	// pollEvery is how often the log is read for the agent's address.
	pollEvery = 50 * time.Millisecond
)

// listening is the line the examples print once their agent (or, for
// pprof-controller, their pprof server) listens.
var listening = regexp.MustCompile(`^(?:agent|pprof) listening on (\S+)$`)

// Process is an example Start started.
type Process struct {
	example Example
	args    []string
	proc    *childproc.Process
	addr    string
}

// Start starts example with args and returns once its agent listens,
// failing t with the example's log if it exits first or does not listen
// within 90 s. The example is stopped when t ends, and its log shown if t
// failed. It needs Main in the package's TestMain.
func Start(t testing.TB, example Example, args ...string) *Process {
	t.Helper()
	p, err := start(t, example, args)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// start is Start returning the error it fails t with; the process, when
// it started, is stopped when t ends.
func start(t testing.TB, example Example, args []string) (*Process, error) {
	t.Helper()
	bin := binary(t, example)
	proc, err := childproc.Start(string(example), bin, filepath.Join(t.TempDir(), string(example)+".log"), args)
	if err != nil {
		return nil, err
	}
	p := &Process{example: example, args: args, proc: proc}
	t.Cleanup(func() {
		// A failure before the agent listened has shown the log already.
		if t.Failed() && p.addr != "" {
			t.Logf("%s logged:\n%s", p, strings.Join(p.Log(), "\n"))
		}
		_ = p.Stop()
	})
	return p, p.waitAddr(startTimeout)
}

// String names the example and the flags it runs with.
func (p *Process) String() string {
	return strings.Join(append([]string{string(p.example)}, p.args...), " ")
}

// waitAddr reads the log until it has the agent's address, the example
// exits or timeout passes.
func (p *Process) waitAddr(timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		for _, l := range p.Log() {
			if m := listening.FindStringSubmatch(l); m != nil {
				p.addr = m[1]
				return nil
			}
		}
		select {
		case <-p.proc.Done():
			return fmt.Errorf("%s exited (%v) before its agent listened; its log:\n%s",
				p, p.proc.Wait(), strings.Join(p.Log(), "\n"))
		case <-deadline.C:
			return fmt.Errorf("the agent of %s did not listen within %s; its log:\n%s",
				p, timeout, strings.Join(p.Log(), "\n"))
		case <-tick.C:
		}
	}
}

// Addr is the address the agent printed: host:port for client-go's
// example, a URL of the metrics server's mount for controller-runtime's.
func (p *Process) Addr() string { return p.addr }

// PID is the example's process ID.
func (p *Process) PID() int { return p.proc.PID() }

// Log returns the lines the example has written so far (on stderr: the
// examples write nothing on stdout).
func (p *Process) Log() []string {
	// Exited first: once it has, the file is whole.
	exited := p.proc.Exited()
	data, err := os.ReadFile(p.proc.LogPath())
	if err != nil {
		return []string{fmt.Sprintf("(could not read %s: %v)", p.proc.LogPath(), err)}
	}
	s := string(data)
	if !exited {
		// A line being written may be read in part: keep the whole ones.
		s = s[:strings.LastIndexByte(s, '\n')+1]
	}
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Stop ends the example as an operator would, with SIGTERM, and waits for
// it to exit, killing it if it has not after StopGrace. It returns how the
// example ended: nil for exit status 0. It may be called again; t's end
// calls it too.
func (p *Process) Stop() error {
	p.proc.Stop(StopGrace)
	return p.proc.Wait()
}
