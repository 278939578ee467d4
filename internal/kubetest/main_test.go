package kubetest_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/informtop/informtop/internal/kubetest"
)

// kubetest.Main stops the shared cluster after the tests; goleak then checks
// that no goroutine (a process waiter, an HTTP connection) outlived them.
func TestMain(m *testing.M) {
	code := kubetest.Main(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
