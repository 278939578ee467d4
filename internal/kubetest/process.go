package kubetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// process is one etcd or kube-apiserver that the harness started. Its output
// goes to a file, not a pipe, so no goroutine copies it and a test that ends
// early cannot block the child on a full pipe.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once cmd.Wait has returned
	err     error         // cmd.Wait's result; read only after done is closed
}

// startProcess starts bin with args, its stdout and stderr going to logPath.
func startProcess(name, bin, logPath string, args []string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("could not create the log file of %s: %w", name, err)
	}
	// The child has its own copy of the descriptor after Start.
	defer logFile.Close()

	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A process group of its own keeps a terminal's Ctrl-C from reaching
		// the child directly: the test binary alone decides when and in which
		// order (API servers before etcd) its children stop.
		Setpgid: true,
		// If the test binary dies without running Close (killed by go test's
		// -timeout, SIGKILL, a crash), the kernel kills the child. Linux sends
		// this signal when the *thread* that forked exits, not the process;
		// that is fine here because the Go runtime only ends an OS thread when
		// a goroutine locked to it (runtime.LockOSThread) exits, and the
		// goroutines that call into this package are test goroutines, which
		// are never locked. Do not call Start from a locked goroutine.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("could not start %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, then SIGKILL if the process is still there after grace,
// and returns once it has been reaped. os.Process signals through a pidfd on
// Linux, so a signal can never reach an unrelated process that reused the PID.
func (p *process) stop(grace time.Duration) {
	if p.exited() {
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

// tail returns the last n lines of the process's log, each cut to a sane
// length (klog and zap lines can be kilobytes long).
func (p *process) tail(n int) string {
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

// logContains reports whether the process's log holds s.
func (p *process) logContains(s string) bool {
	data, err := os.ReadFile(p.logPath)
	return err == nil && bytes.Contains(data, []byte(s))
}

// waitReady polls url until it answers 200, the process exits or timeout
// passes.
func waitReady(p *process, client *http.Client, url, token string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, failedChecks(body))
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready (%v); the end of its log:\n%s", p.name, p.err, p.tail(30))
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready after %s (last answer from %s: %s); the end of its log:\n%s",
				p.name, timeout, url, last, p.tail(30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// failedChecks keeps the failing lines of a verbose /readyz answer, which
// otherwise lists every passing check too.
func failedChecks(body []byte) string {
	var failed []string
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "[-]") {
			failed = append(failed, l)
		}
	}
	if len(failed) == 0 {
		return strings.TrimSpace(string(body))
	}
	return strings.Join(failed, "; ")
}
