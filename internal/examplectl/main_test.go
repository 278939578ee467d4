package examplectl_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// examplectl.Main removes the binaries after the tests (and kubetest.Main
// stops the shared cluster); goleak then checks that no goroutine (a
// process waiter, an HTTP connection) outlived them.
func TestMain(m *testing.M) {
	code := examplectl.Main(m, kubetest.Main)
	if dir := examplectl.BuildDir(); code == 0 && dir != "" {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "examplectl.Main left the binaries' directory %s (%v)\n", dir, err)
			code = 1
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
