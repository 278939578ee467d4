package kubetest

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/informtop/informtop/internal/childproc"
)

// shared is the one cluster of a test binary (a test package), started by
// the first call to Shared and stopped by Main.
var shared struct {
	sync.Mutex
	main    bool // Main is running the tests
	started bool
	c       *Cluster
	err     error
}

// Main runs m's tests and then stops the cluster that Shared started, if a
// test asked for one. It returns m.Run's code; use it as
//
//	func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }
//
// When the tests failed, it writes the end of each process's log to stderr.
func Main(m *testing.M) int {
	shared.Lock()
	shared.main = true
	shared.Unlock()

	code := m.Run()

	shared.Lock()
	c := shared.c
	shared.main = false
	shared.Unlock()
	if c != nil {
		if code != 0 {
			c.logTails(func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) })
		}
		c.Close()
	}
	return code
}

// Shared returns the test binary's cluster, starting it on first use (so a
// `go test -run` that selects no test needing it does not pay for it). Tests
// sharing it must not stop its API server and should use namespaces of their
// own. It needs Main in TestMain, which stops the cluster after the tests.
// The options count only on the call that starts the cluster.
func Shared(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if !shared.main {
		t.Fatal("kubetest: Shared needs the package's TestMain to run the tests through kubetest.Main, " +
			"which stops the shared cluster: add func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }")
	}
	if !shared.started {
		shared.started = true
		shared.c, shared.err = New(opts...)
	}
	if shared.err != nil {
		childproc.SkipOrFatal(t, shared.err, ErrNoBinaries)
	}
	c := shared.c
	t.Cleanup(func() {
		if t.Failed() {
			c.logTails(t.Logf)
		}
	})
	return c
}
