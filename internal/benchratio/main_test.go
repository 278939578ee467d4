package main

import (
	"strings"
	"testing"
)

func TestPairsAndRatios(t *testing.T) {
	in := `goos: linux
BenchmarkWatchThroughput/handlers=1/ours-2   3   100 ns/op   2000 ns/event   10 allocs/op
BenchmarkWatchThroughput/handlers=1/ours-uninstrumented-2   3   90 ns/op   1900 ns/event   10 allocs/op
BenchmarkWatchThroughput/handlers=1/client-go-2   3   120 ns/op   2000 ns/event   12 allocs/op
BenchmarkWatchThroughput/handlers=1/client-go-2   3   120 ns/op   4000 ns/event   12 allocs/op
BenchmarkRetainedHeap/objects=100000/ours-2   1   5 ns/op   800 B/object
BenchmarkRetainedHeap/objects=100000/client-go-2   1   5 ns/op   1000 B/object
PASS
`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"BenchmarkWatchThroughput/handlers=1              ns/event            2000           3000     1.50x           1900        +5.3%",
		"BenchmarkWatchThroughput/handlers=1              allocs/op             10             12     1.20x",
		"BenchmarkRetainedHeap/objects=100000             B/object             800           1000     1.25x",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(got, "goos: linux\n") {
		t.Error("input is not echoed first")
	}
}
