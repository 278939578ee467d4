// Package promtest starts a real Prometheus server on 127.0.0.1 for tests,
// scraping the targets and evaluating the rule files a test gives it, so that
// informtop's metrics and rules are tested by the server that runs them in
// production rather than by a parser of our own.
//
// The binaries (prometheus and promtool) come from test/prom/build.sh
// (`make prom-bin`), found through the environment variable
// INFORMTOP_PROM_BIN; `make unit` sets it. Without it, Start and Promtool
// skip the test under -short and fail it otherwise, so CI cannot pass without
// having run them.
//
// Every server Start starts is stopped by Close or when the test ends
// (SIGTERM, then SIGKILL after a grace period), and by the kernel if the test
// binary dies first.
package promtest

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/informtop/informtop/internal/childproc"
)

const (
	// EnvBinDir names the environment variable holding the directory with
	// prometheus and promtool: the one test/prom/build.sh prints.
	EnvBinDir = "INFORMTOP_PROM_BIN"

	// stopGrace bounds how long Prometheus may take to stop after SIGTERM
	// (it writes its head block's WAL; well under a second in a test)
	// before it gets SIGKILL.
	stopGrace = 10 * time.Second
	// startTimeout bounds how long Prometheus may take to answer /-/ready:
	// about a second usually, far more on a loaded 2-core machine.
	startTimeout = 60 * time.Second
	// tailLines is how much of the server's log a failure shows.
	tailLines = 40
)

// ErrNoBinaries says that INFORMTOP_PROM_BIN is not set.
var ErrNoBinaries = errors.New(EnvBinDir + " is not set, so there is no prometheus or promtool to run: " +
	"run the tests with `make unit`, or run `make prom-bin` and set " + EnvBinDir + " to the directory it prints")

// Target is one process Prometheus scrapes. Targets of one Job share a
// scrape configuration, so they must share a MetricsPath ("" is /metrics).
// Labels are added to every series scraped from it, as a service
// discovery's target labels (namespace, pod) would be.
type Target struct {
	Job, Addr, MetricsPath string
	Labels                 map[string]string
}

// Config is what the server scrapes and evaluates. RuleFiles are paths of
// Prometheus rule files; an interval of 0 means 1 s, so that a test sees a
// new sample, and a rule's result, every second.
type Config struct {
	Targets                      []Target
	RuleFiles                    []string
	ScrapeInterval, EvalInterval time.Duration
}

// binary returns the path of name in INFORMTOP_PROM_BIN, or an error saying
// how to build it.
func binary(name string) (string, error) {
	dir := os.Getenv(EnvBinDir)
	if dir == "" {
		return "", ErrNoBinaries
	}
	return childproc.Executable(EnvBinDir, dir, name, "prom-bin")
}

// Amtool returns the path of Alertmanager's amtool, built beside promtool
// (test/prom/build.sh) to check Alertmanager configuration.
func Amtool(t testing.TB) string {
	t.Helper()
	p, err := binary("amtool")
	if err != nil {
		childproc.SkipOrFatal(t, err, ErrNoBinaries)
	}
	return p
}

// Promtool returns the path of the promtool built with the server.
func Promtool(t testing.TB) string {
	t.Helper()
	p, err := binary("promtool")
	if err != nil {
		childproc.SkipOrFatal(t, err, ErrNoBinaries)
	}
	return p
}
