// Package examplectl runs the test controllers under examples/internal/cmd
// (the examples a user copies, with the knobs and measurements only tests
// need: package examples/internal/harness) for the tests that watch a
// controller through its agent: each is built once per test binary,
// started with the test's flags, and found through the `agent listening
// on ADDR` line it prints on stderr.
//
// It is test support: import it from _test.go files only. Users never link
// it, and nothing they link may import it (internal/layering checks).
//
// Every example Start starts is stopped when its test ends (SIGTERM, then
// SIGKILL after a grace period), and by the kernel if the test binary dies
// first; its log is shown when the test failed.
package examplectl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Example names a test controller: a directory of examples/internal/cmd,
// in the nested module examples/.
type Example string

// The test controllers, twins of examples/client-go-controller and
// examples/controller-runtime-manager, which announce their agent
// (Start); and two that serve only pprof (no informtop import), for
// attach's pprof mode: a client-go controller and a controller-runtime
// manager.
const (
	ClientGoController       Example = "client-go-controller"
	ControllerRuntimeManager Example = "controller-runtime-manager"
	PprofController          Example = "pprof-controller"
	PprofManager             Example = "pprof-manager"
)

// The examples as a user copies them, with nothing for tests; they
// announce nothing, so StartAt waits for their agent at the address the
// test gave them.
const (
	CopiedClientGoController       Example = "copied-client-go-controller"
	CopiedControllerRuntimeManager Example = "copied-controller-runtime-manager"
)

// Versions are the Kubernetes minors the agent supports, oldest first.
// The examples' own module pins the oldest's client-go and
// controller-runtime; test/agent/k8s-<minor> pins each newer one and
// builds the examples with it.
var Versions = []string{"1.35", "1.36", "1.37"}

// At is example built with the client-go and controller-runtime of
// Kubernetes minor (one of Versions).
func (e Example) At(minor string) Example {
	if minor == Versions[0] {
		return e
	}
	return Example(string(e) + "@" + minor)
}

// split is example without its version, and the version ("" the oldest).
func (e Example) split() (Example, string) {
	name, minor, _ := strings.Cut(string(e), "@")
	return Example(name), minor
}

// pkg is example's package, relative to examples/.
func (e Example) pkg() string {
	e, _ = e.split()
	switch e {
	case CopiedClientGoController:
		return "./client-go-controller"
	case CopiedControllerRuntimeManager:
		return "./controller-runtime-manager/cmd"
	case PprofController, PprofManager:
		return "./" + string(e)
	}
	return "./internal/cmd/" + string(e)
}

// built holds the binaries of a test binary, each built by the first Start
// that needs it and removed by Main.
var built struct {
	sync.Mutex
	main bool   // Main is running the tests
	dir  string // holds every binary built; "" until the first build
	bins map[Example]build
}

// build is one example's binary, or why it could not be built: a failed
// build fails every test that needs it without building again.
type build struct {
	path string
	err  error
}

// Main runs m's tests through run (kubetest.Main, or m.Run when run is nil)
// and then removes the binaries Start built. It returns run's code; use it as
//
//	func TestMain(m *testing.M) { os.Exit(examplectl.Main(m, kubetest.Main)) }
func Main(m *testing.M, run func(*testing.M) int) int {
	if run == nil {
		run = (*testing.M).Run
	}
	built.Lock()
	built.main = true
	built.Unlock()

	code := run(m)

	built.Lock()
	defer built.Unlock()
	built.main = false
	if built.dir != "" {
		if err := os.RemoveAll(built.dir); err != nil {
			fmt.Fprintf(os.Stderr, "examplectl: %v\n", err)
		}
	}
	return code
}

// binary returns the path of example's binary, building it on first use.
func binary(t testing.TB, example Example) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if !built.main {
		t.Fatal("examplectl: Start needs the package's TestMain to run the tests through examplectl.Main, " +
			"which removes the binaries it builds: add func TestMain(m *testing.M) { os.Exit(examplectl.Main(m, nil)) }")
	}
	b, ok := built.bins[example]
	if !ok {
		b.path, b.err = buildExample(example)
		if built.bins == nil {
			built.bins = map[Example]build{}
		}
		built.bins[example] = b
	}
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// buildExample builds example into built.dir, creating it first; the
// caller holds built's lock.
func buildExample(example Example) (string, error) {
	src, err := examplesDir()
	if err != nil {
		return "", err
	}
	if built.dir == "" {
		if built.dir, err = os.MkdirTemp("", "informtop-examplectl-"); err != nil {
			return "", err
		}
	}
	path := filepath.Join(built.dir, strings.ReplaceAll(string(example), "@", "-"))
	pkg := example.pkg()
	cmd := exec.Command("go", "build", "-o", path, pkg)
	cmd.Dir = src
	if _, minor := example.split(); minor != "" {
		// The module pinning that minor builds the examples' package with
		// its versions.
		cmd.Args[len(cmd.Args)-1] = "github.com/informtop/informtop/examples/" + strings.TrimPrefix(pkg, "./")
		cmd.Dir = filepath.Join(filepath.Dir(src), "test", "agent", "k8s-"+minor)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building examples/%s (%s): %v\n%s", strings.TrimPrefix(pkg, "./"), example, err, out)
	}
	return path, nil
}

// examplesDir finds examples/ above the working directory, which go test
// sets to the directory of the package under test.
func examplesDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		ex := filepath.Join(dir, "examples")
		if _, err := os.Stat(filepath.Join(ex, "go.mod")); err == nil {
			return ex, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("examplectl: no examples/go.mod above the working directory")
		}
		dir = parent
	}
}
