package engineserve

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(envBenchClient); url != "" {
		os.Exit(runClientProcess(url)) // BenchmarkWatchThroughputWithAgent's client process
	}
	if arg := os.Getenv(envBenchScrapers); arg != "" {
		os.Exit(runScraperProcess(arg)) // BenchmarkHandlerLatencyUnderScrapers's scrapers
	}
	goleak.VerifyTestMain(m)
}
