// Package childproc runs the servers the integration tests start beside
// them (etcd, kube-apiserver, Prometheus): each in its own process group,
// killed by the kernel if the test binary dies first, its output in a log
// file that a failing test shows the end of.
package childproc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Process is one server a harness started. Its output goes to a file, not
// a pipe, so no goroutine copies it and a test that ends early cannot
// block the child on a full pipe. Its fields are set by Start; err is
// written once, before done is closed, and read only after.
type Process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once cmd.Wait has returned
	err     error         // cmd.Wait's result
}

// Start starts bin with args, its stdout and stderr appended to logPath;
// name is how messages call it ("etcd", "prometheus").
func Start(name, bin, logPath string, args []string) (*Process, error) {
	return StartEnv(name, bin, logPath, args, nil)
}

// StartEnv is Start with env ("KEY=value") added to the test binary's
// environment, a later entry winning over an earlier one: for a server that
// reads a file or setting of the user's unless its environment says
// otherwise.
func StartEnv(name, bin, logPath string, args, env []string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("could not create the log file of %s: %w", name, err)
	}
	// The child has its own copy of the descriptor after Start.
	defer logFile.Close()

	cmd := exec.Command(bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A process group of its own keeps a terminal's Ctrl-C from reaching
		// the child directly: the test binary alone decides when and in which
		// order its children stop.
		Setpgid: true,
		// If the test binary dies without its cleanups (killed by go test's
		// -timeout, SIGKILL, a crash), the kernel kills the child. Linux sends
		// this signal when the *thread* that forked exits, not the process;
		// that is fine here because the Go runtime only ends an OS thread when
		// a goroutine locked to it (runtime.LockOSThread) exits, and the
		// goroutines that call Start are test goroutines, which are never
		// locked. Do not call Start from a locked goroutine.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("could not start %s (%s): %w", name, bin, err)
	}
	p := &Process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Name is the name Start was given.
func (p *Process) Name() string { return p.name }

// PID is the process's ID.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// LogPath is the file its output goes to.
func (p *Process) LogPath() string { return p.logPath }

// Done is closed once the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited and been reaped.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// State is "running", "exited", or how it ended when that was an error.
func (p *Process) State() string {
	if !p.Exited() {
		return "running"
	}
	if p.err != nil {
		return p.err.Error()
	}
	return "exited"
}

// Wait waits for the process to exit and returns how it ended:
// exec.Cmd.Wait's result, nil for exit status 0.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Signal sends sig to the process (SIGSTOP and SIGCONT freeze and thaw
// it). os.Process signals through a pidfd on Linux, so a signal can never
// reach an unrelated process that reused the PID.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Stop sends SIGTERM, then SIGKILL if the process is still there after
// grace, and returns once it has been reaped. It may be called again.
func (p *Process) Stop(grace time.Duration) {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		return
	case <-timer.C:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Tail returns the last n lines of the process's log, each cut to a sane
// length (klog and zap lines can be kilobytes long).
func (p *Process) Tail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(could not read %s: %v)", p.logPath, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 400 {
			lines[i] = l[:400] + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// LogContains reports whether the process's log holds s.
func (p *Process) LogContains(s string) bool {
	data, err := os.ReadFile(p.logPath)
	return err == nil && bytes.Contains(data, []byte(s))
}
