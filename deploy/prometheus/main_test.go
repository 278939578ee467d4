package prometheus_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/informtop/informtop/internal/kubetest"
)

// kubetest.Main stops the shared cluster after the tests; goleak then checks
// that no goroutine (a controller's log reader, an HTTP connection) outlived
// them. The example controller's binary is built once for all tests.
func TestMain(m *testing.M) {
	code := kubetest.Main(m)
	removeControllerBinary()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
