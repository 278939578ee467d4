package childproc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Executable is dir/name when that is an executable file, else an error
// saying to run `make target` and set env (whose value dir is) to the
// directory it prints.
func Executable(env, dir, name, target string) (string, error) {
	p := filepath.Join(dir, name)
	fi, err := os.Stat(p)
	if err == nil && (fi.IsDir() || fi.Mode()&0o111 == 0) {
		err = errors.New("not an executable file")
	}
	if err != nil {
		return "", fmt.Errorf("%s=%s has no usable %s (%v): run `make %s` and set %s to the directory it prints",
			env, dir, name, err, target, env)
	}
	return p, nil
}

// SkipOrFatal ends t for a server that could not start: missing binaries
// (err is missing) skip a -short run (a quick local `go test -short
// ./...`) and fail any other, so that CI cannot pass without having run
// the tests that need them.
func SkipOrFatal(t testing.TB, err, missing error) {
	t.Helper()
	if errors.Is(err, missing) && testing.Short() {
		t.Skip(err)
	}
	t.Fatal(err)
}
