package engineserve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The slow client of BenchmarkWatchThroughputWithAgent in a process of its
// own, as `informtop attach` runs: the test binary started again with
// envBenchClient set to the relay's URL runs only the client (TestMain),
// until its stdin closes, then prints its totals as JSON.

const (
	envBenchClient = "INFORMTOP_BENCH_SLOW_CLIENT"
	headerBenchRun = "X-Informtop-Bench-Run"
)

// relay is one server for the whole benchmark in front of each run's
// agent. Between runs (and during runs without an agent) it holds the
// client's requests until the next agent is set, so the client costs
// nothing then. A cursor from an earlier run's agent means nothing to the
// next one: the relay numbers runs and starts a stale cursor from 0.
type relay struct {
	mu  sync.Mutex
	h   http.Handler  // nil between runs
	set chan struct{} // closed when h is set
	run int
}

func newRelay() *relay { return &relay{set: make(chan struct{})} }

func (r *relay) serve(h http.Handler) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h = h
	if h != nil {
		r.run++
		close(r.set)
		r.set = make(chan struct{})
	}
}

func (r *relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	for {
		r.mu.Lock()
		h, set, run := r.h, r.set, strconv.Itoa(r.run)
		r.mu.Unlock()
		if h == nil {
			select {
			case <-set:
				continue
			case <-req.Context().Done():
				return
			}
		}
		if req.Header.Get(headerBenchRun) != run {
			q := req.URL.Query()
			q.Del("cursor")
			req.URL.RawQuery = q.Encode()
		}
		w.Header().Set(headerBenchRun, run)
		h.ServeHTTP(w, req)
		return
	}
}

// clientProcess is the client's process and the relay it reads.
type clientProcess struct {
	relay  *relay
	srv    *httptest.Server
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout strings.Builder
	stderr strings.Builder
}

func startClientProcess(b *testing.B) *clientProcess {
	p := &clientProcess{relay: newRelay()}
	p.srv = httptest.NewServer(p.relay)
	// The client stands for informtop on another machine: at the lowest
	// priority its own CPU (HTTP, JSON) does not compete with the
	// controller's on a small box, so what remains is the agent's cost.
	// INFORMTOP_BENCH_CLIENT_NICE=0 runs it at normal priority.
	args := []string{"-n", "19", os.Args[0], "-test.run=^$", "-test.bench=^$"}
	if os.Getenv("INFORMTOP_BENCH_CLIENT_NICE") == "0" {
		args = []string{"-n", "0", os.Args[0], "-test.run=^$", "-test.bench=^$"}
	}
	p.cmd = exec.Command("nice", args...)
	p.cmd.Env = append(os.Environ(), envBenchClient+"="+p.srv.URL)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return p
}

func (p *clientProcess) serve(_ *testing.B, h http.Handler) func(*slowClientTotals) {
	p.relay.serve(h)
	return func(*slowClientTotals) { p.relay.serve(nil) }
}

// stop ends the client process and returns what it did.
func (p *clientProcess) stop(b *testing.B) slowClientTotals {
	p.stdin.Close()
	err := p.cmd.Wait()
	p.srv.Close()
	if err != nil {
		b.Fatalf("slow client process: %v: %s", err, p.stderr.String())
	}
	var t slowClientTotals
	if err := json.Unmarshal([]byte(p.stdout.String()), &t); err != nil {
		b.Fatalf("slow client process printed %q: %v", p.stdout.String(), err)
	}
	return t
}

// runClientProcess is the client process's whole life.
func runClientProcess(url string) int {
	c := startSlowClient(url, &http.Client{})
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := c.stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(c.totals()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
