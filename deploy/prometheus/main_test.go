package prometheus_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// kubetest.Main stops the shared cluster after the tests and examplectl.Main
// removes the example controller's binary, built once for all of them;
// goleak then checks that no goroutine (a controller's process waiter, an
// HTTP connection) outlived them.
func TestMain(m *testing.M) {
	code := examplectl.Main(m, kubetest.Main)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
