package examplectl

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/informtop/informtop/agent/api"
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

// StartAt starts example with args and returns once its agent answers at
// addr, what informtop attach takes (HOST:PORT, or the URL of the agent's
// mount), failing t as Start does. It is for the examples as a user copies
// them, which print no address: args must make the agent listen at addr.
func StartAt(t testing.TB, example Example, addr string, args ...string) *Process {
	t.Helper()
	p, err := launch(t, example, args)
	if err == nil {
		err = p.waitAgent(addr, startTimeout)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// start is Start returning the error it fails t with; the process, when
// it started, is stopped when t ends.
func start(t testing.TB, example Example, args []string) (*Process, error) {
	t.Helper()
	p, err := launch(t, example, args)
	if err != nil {
		return nil, err
	}
	return p, p.waitAddr(startTimeout)
}

// launch starts example, to be stopped when t ends.
func launch(t testing.TB, example Example, args []string) (*Process, error) {
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
	return p, nil
}

// waitAgent asks the agent at addr until it answers (any answer carrying
// its protocol version, a refusal for a missing parameter included), the
// example exits or timeout passes.
func (p *Process) waitAgent(addr string, timeout time.Duration) error {
	url := addr
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	url = strings.TrimSuffix(url, "/") + api.PathGeneration
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last string
	err := wait.PollUntilContextCancel(ctx, pollEvery, true, func(ctx context.Context) (bool, error) {
		if p.proc.Exited() {
			return false, fmt.Errorf("%s exited (%v) before its agent answered at %s; its log:\n%s",
				p, p.proc.Wait(), url, strings.Join(p.Log(), "\n"))
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		resp.Body.Close()
		last = resp.Status
		return resp.Header.Get(api.VersionHeader) != "", nil
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("the agent of %s did not answer at %s within %s (last: %s); its log:\n%s",
			p, url, timeout, last, strings.Join(p.Log(), "\n"))
	}
	if err == nil {
		p.addr = addr
	}
	return err
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
// example, a URL of the metrics server's mount for controller-runtime's;
// for StartAt, the URL it was given.
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
