package replay

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	"k8s.io/klog/v2"

	"github.com/informtop/informtop/internal/kubetest"
)

// goleak checks that every replayed informer and stream ended; idle
// keep-alive connections of client-go's shared transports (the real API
// server test) are not ours to close.
func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard()) // the reflector's warnings about the restart the cluster test causes
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
