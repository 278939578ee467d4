package examplectl

import "testing"

// StartErr is Start returning the error it fails the test with.
func StartErr(t testing.TB, example Example, args ...string) (*Process, error) {
	t.Helper()
	return start(t, example, args)
}

// Binary is the path of example's binary, built on first use.
func Binary(t testing.TB, example Example) string {
	t.Helper()
	return binary(t, example)
}

// BuildDir is the directory Main removes; "" if nothing was built.
func BuildDir() string {
	built.Lock()
	defer built.Unlock()
	return built.dir
}
