// Package harness is what the tests and benchmarks need of a controller
// and its users do not: reading the process's allocation and CPU from
// outside (package runtimestats), and telling the test where the agent
// listens. The test controllers under examples/internal/cmd use it; the
// examples a user copies (client-go-controller, controller-runtime-manager)
// do not, so they stay the plain controllers a user starts from.
//
// The test controllers print exactly one line
//
//	agent listening on ADDR
//
// on stderr once their agent answers at ADDR, which is what
// internal/examplectl waits for.
package harness

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/informtop/informtop/examples/internal/runtimestats"
)

// Measurement is what the benchmark's flags ask for; its zero value
// measures nothing.
type Measurement struct {
	runtimeStats bool
	allocProfile string
	cpuProfile   string
}

// Flags registers --runtime-stats, --alloc-profile and --cpu-profile on fs.
func Flags(fs *flag.FlagSet) *Measurement {
	m := &Measurement{}
	fs.BoolVar(&m.runtimeStats, "runtime-stats", false, "on SIGUSR1, print a line of the process's allocation figures (runtime/metrics) on stderr")
	fs.StringVar(&m.allocProfile, "alloc-profile", "", "with --runtime-stats: record every allocation and, on SIGUSR1, write the allocation profile so far to PREFIX.N")
	fs.StringVar(&m.cpuProfile, "cpu-profile", "", "write a CPU profile of the whole run to this file")
	return m
}

// Start starts what the flags asked for, until ctx is done; stop ends
// the CPU profile. Call it before the controller's work starts: only
// allocations from then on are profiled.
func (m *Measurement) Start(ctx context.Context) (stop func(), err error) {
	if m.runtimeStats {
		runtimestats.Start(ctx, m.allocProfile)
	}
	if m.cpuProfile == "" {
		return func() {}, nil
	}
	return runtimestats.CPUProfile(m.cpuProfile)
}

// announceTo is where Announce prints: stderr, but in this package's tests.
var announceTo io.Writer = os.Stderr

// Announce prints the line a test waits for: the agent answers at addr.
func Announce(addr string) {
	fmt.Fprintf(announceTo, "agent listening on %s\n", addr)
}

// FreePort is addr with port 0 replaced by a port free now, for servers
// that do not say which port they bound (controller-runtime's metrics
// server). Another process may take it before the server binds; then
// the server fails to start, and AnnounceWhenServing never announces.
func FreePort(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if port != "0" {
		return addr, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", fmt.Errorf("finding a free port on %s: %w", host, err)
	}
	defer ln.Close()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return net.JoinHostPort(host, port), nil
}

// AnnounceWhenServing announces the agent mounted at path in the server
// listening on addr, as a URL, once the agent answers there, or gives up
// when ctx is done. probe is the path under the mount to ask, and isAgent
// tells the agent's answer from another's, so a port another process took
// is never announced (the caller knows the agent's protocol: this package
// links nothing of informtop's, for the plain builds). Behind
// controller-runtime's authentication filter (secure) nothing reaches the
// agent without a Kubernetes token: the filter's 401 over TLS is the sign.
func AnnounceWhenServing(ctx context.Context, addr, path, probe string, secure bool, isAgent func(*http.Response) bool) {
	scheme := "http"
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if secure {
		scheme = "https"
		// The metrics server's certificate is self-signed.
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // a local readiness probe
	}
	defer tr.CloseIdleConnections()
	url := scheme + "://" + loopback(addr) + path + strings.TrimPrefix(probe, "/")
	client := &http.Client{Timeout: time.Second, Transport: tr}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if isAgent(resp) || secure && resp.StatusCode == http.StatusUnauthorized {
				Announce(scheme + "://" + addr + path)
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// loopback is addr with a wildcard host replaced by 127.0.0.1, where a
// wildcard listener is reachable.
func loopback(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
