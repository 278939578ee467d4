package pprof

import (
	"bytes"
	"fmt"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"testing"
	"time"
)

// BenchmarkGoroutineDump measures what one /debug/pprof/goroutine?debug=2
// costs a process of 5,000 and 50,000 goroutines, each blocked 12 frames
// deep as client-go's listener, reflector and worker goroutines are. At
// debug=2 the runtime stops the world for the whole traceback
// (runtime.Stack with all set), so the time per dump is also the target's
// pause (max-pause-ms, from the runtime's own histogram of pauses, is the
// longest single one); "MB/dump" is what goes over the wire, "parse-ms" what informtop
// spends reading it. docs/attach-pprof.md has the figures.
//
//	go test ./attach/pprof -run '^$' -bench GoroutineDump -benchtime 5x
func BenchmarkGoroutineDump(b *testing.B) {
	for _, n := range []int{5_000, 50_000} {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() { deep(12, stop) })
			}
			defer func() { close(stop); wg.Wait() }()
			var buf bytes.Buffer
			var parse time.Duration
			before := pauses()
			b.ResetTimer()
			for b.Loop() {
				buf.Reset()
				if err := pprof.Lookup("goroutine").WriteTo(&buf, 2); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				start := time.Now()
				if _, err := ParseDump(bytes.NewReader(buf.Bytes())); err != nil {
					b.Fatal(err)
				}
				parse += time.Since(start)
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(longestPause(before, pauses()).Seconds()*1e3, "max-pause-ms")
			b.ReportMetric(float64(buf.Len())/1e6, "MB/dump")
			b.ReportMetric(float64(parse.Milliseconds())/float64(b.N), "parse-ms")
		})
	}
}

// pauses is the runtime's histogram of stop-the-world pauses.
func pauses() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/pauses/total/other:seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64Histogram()
}

// longestPause is the upper bound of the highest bucket that gained a
// pause between two readings.
func longestPause(before, after *metrics.Float64Histogram) time.Duration {
	for i := len(after.Counts) - 1; i >= 0; i-- {
		if after.Counts[i] > before.Counts[i] {
			return time.Duration(after.Buckets[i+1] * float64(time.Second))
		}
	}
	return 0
}

// deep blocks on stop depth frames down.
//
//go:noinline
func deep(depth int, stop <-chan struct{}) {
	if depth == 0 {
		<-stop
		return
	}
	deep(depth-1, stop)
}
