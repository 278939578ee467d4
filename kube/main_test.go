package kube

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/klog/v2"

	"github.com/go-logr/logr"

	"github.com/informtop/informtop/internal/kubetest"
)

// kubetest.Main stops the real API server after the tests; goleak then
// checks that every informer and watch ended. Idle keep-alive connections
// of client-go's shared transports are not ours to close.
func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard()) // the reflector's warnings about the restarts tests cause
	code := kubetest.Main(m)
	if code == 0 {
		if err := goleak.Find(
			goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
			goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
		); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
