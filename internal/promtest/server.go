package promtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is one prometheus process serving on 127.0.0.1. Its fields are set
// by Start and not changed afterwards, except through once by Close.
type Server struct {
	url     string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once cmd.Wait has returned
	waitErr error         // cmd.Wait's result; read only after done is closed
	once    sync.Once
}

// Start starts Prometheus for t with cfg and returns once it answers
// /-/ready. It is stopped when t ends, or by Close; when t fails, the end of
// its log is written to t's log.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	bin, err := binary("prometheus")
	if err != nil {
		skipOrFatal(t, err)
	}
	conf, err := configYAML(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// TempDir before Cleanup: cleanups run last-in first-out, so the server
	// stops before its directory is removed.
	dir := t.TempDir()
	confPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(confPath, conf, 0o600); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	// A port found free may be taken before Prometheus binds it: try again
	// with another, a few times.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		logPath := filepath.Join(dir, fmt.Sprintf("prometheus.%d.log", attempt))
		s, err := launch(bin, dir, confPath, logPath, port)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("promtest: last lines of prometheus (pid %d, %s), from %s:\n%s", s.cmd.Process.Pid, s.state(), s.logPath, s.tail(tailLines))
			}
			s.Close()
		})
		err = s.waitReady()
		if err == nil {
			t.Logf("promtest: prometheus at %s ready in %s, scraping jobs %v", s.url, time.Since(began).Round(time.Millisecond), jobsOf(cfg))
			return s
		}
		s.Close()
		if attempt < 3 && s.logContains("address already in use") {
			continue
		}
		t.Fatal(err)
	}
}

func launch(bin, dir, confPath, logPath string, port int) (*Server, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("promtest: could not create prometheus's log file: %w", err)
	}
	// The child keeps its own descriptor.
	defer logFile.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin,
		"--config.file="+confPath,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		// A test's server lives minutes: no need to keep blocks for 15 days
		// or to wait for its queries' default 2 minutes.
		"--storage.tsdb.retention.time=1h",
		"--query.timeout=30s",
	)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Its own process group: a terminal's Ctrl-C reaches the test
		// binary, which stops the server itself.
		Setpgid: true,
		// If the test binary dies without its cleanups (a -timeout panic,
		// SIGKILL), the kernel kills the server. Linux sends it when the
		// forking thread exits, which for a test goroutine (never locked to
		// its thread) happens only with the process.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("promtest: could not start %s: %w", bin, err)
	}
	s := &Server{url: "http://" + addr, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// URL is the server's address, http://127.0.0.1:PORT, for its HTTP API.
func (s *Server) URL() string { return s.url }

// Close stops the server (SIGTERM, then SIGKILL after a grace period) and
// returns once it has exited. It can be called more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		if s.exited() {
			return
		}
		// os.Process signals through a pidfd on Linux: a signal cannot
		// reach another process that reused the PID.
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		timer := time.NewTimer(stopGrace)
		defer timer.Stop()
		select {
		case <-s.done:
			return
		case <-timer.C:
		}
		_ = s.cmd.Process.Kill()
		<-s.done
	})
}

func (s *Server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *Server) state() string {
	if !s.exited() {
		return "running"
	}
	if s.waitErr != nil {
		return s.waitErr.Error()
	}
	return "exited"
}

// waitReady polls /-/ready until it answers 200, the server exits or
// startTimeout passes.
func (s *Server) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/-/ready", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status + ": " + strings.TrimSpace(string(body))
		} else {
			last = err.Error()
		}
		select {
		case <-s.done:
			return fmt.Errorf("promtest: prometheus exited before it was ready (%v); is a rule file or target invalid? The end of its log:\n%s",
				s.waitErr, s.tail(30))
		case <-ctx.Done():
			return fmt.Errorf("promtest: prometheus was not ready after %s (last answer: %s); the end of its log:\n%s",
				startTimeout, last, s.tail(30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("promtest: could not find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns the last n lines of the server's log, each cut to 400 bytes.
func (s *Server) tail(n int) string {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return fmt.Sprintf("(could not read %s: %v)", s.logPath, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 400 {
			lines[i] = l[:400] + "…"
		}
		lines[i] = "\t" + lines[i]
	}
	return strings.Join(lines, "\n")
}

func (s *Server) logContains(sub string) bool {
	data, err := os.ReadFile(s.logPath)
	return err == nil && bytes.Contains(data, []byte(sub))
}
