package promtest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/internal/childproc"
)

// Server is one prometheus process serving on 127.0.0.1. Its fields are set
// by Start and not changed afterwards.
type Server struct {
	url string
	p   *childproc.Process
}

// Start starts Prometheus for t with cfg and returns once it answers
// /-/ready. It is stopped when t ends, or by Close; when t fails, the end of
// its log is written to t's log.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	bin, err := binary("prometheus")
	if err != nil {
		childproc.SkipOrFatal(t, err, ErrNoBinaries)
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
				t.Logf("promtest: last lines of prometheus (pid %d, %s), from %s:\n%s", s.p.PID(), s.p.State(), s.p.LogPath(), indent(s.p.Tail(tailLines)))
			}
			s.Close()
		})
		err = s.waitReady()
		if err == nil {
			t.Logf("promtest: prometheus at %s ready in %s, scraping jobs %v", s.url, time.Since(began).Round(time.Millisecond), jobsOf(cfg))
			return s
		}
		s.Close()
		if attempt < 3 && s.p.LogContains("address already in use") {
			continue
		}
		t.Fatal(err)
	}
}

func launch(bin, dir, confPath, logPath string, port int) (*Server, error) {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p, err := childproc.Start("prometheus", bin, logPath, []string{
		"--config.file=" + confPath,
		"--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + addr,
		// A test's server lives minutes: no need to keep blocks for 15 days
		// or to wait for its queries' default 2 minutes.
		"--storage.tsdb.retention.time=1h",
		"--query.timeout=30s",
	})
	if err != nil {
		return nil, fmt.Errorf("promtest: %w", err)
	}
	return &Server{url: "http://" + addr, p: p}, nil
}

// URL is the server's address, http://127.0.0.1:PORT, for its HTTP API.
func (s *Server) URL() string { return s.url }

// Close stops the server (SIGTERM, then SIGKILL after a grace period) and
// returns once it has exited. It can be called more than once.
func (s *Server) Close() { s.p.Stop(stopGrace) }

// waitReady polls /-/ready until it answers 200, the server exits or
// startTimeout passes.
func (s *Server) waitReady() error {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	if err := childproc.WaitReady(s.p, client, s.url+"/-/ready", "", startTimeout); err != nil {
		return fmt.Errorf("promtest: %w; is a rule file or target invalid?", err)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("promtest: could not find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func indent(s string) string { return "\t" + strings.ReplaceAll(s, "\n", "\n\t") }
