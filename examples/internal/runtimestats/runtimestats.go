// Package runtimestats lets a benchmark read a controller's own
// allocation figures from outside, the same way whether or not informtop
// is linked in: nothing here is informtop's, only runtime/metrics.
//
// On SIGUSR1 the process prints one line on stderr,
//
//	runtime-stats seq=N heap-allocs-bytes=B heap-allocs-objects=O gc-cycles=C heap-live-bytes=L goroutines=G
//
// where seq counts the signals handled, so a reader that sends one
// signal at a time knows which line answers it. Printing the line
// allocates nothing, so two lines bracket exactly what the process
// allocated in between. With a profile prefix every allocation is
// recorded (runtime.MemProfileRate = 1) and each signal also writes the
// allocation profile so far, as text, to PREFIX.N, before the line
// (whose figures are read first): the difference of two profiles says
// which code allocated in between. CPUProfile profiles the
// whole run instead, for the benchmark's throughput figures.
package runtimestats

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"syscall"
)

// Names of the figures, in the order they are printed.
var figures = []struct{ metric, key string }{
	{"/gc/heap/allocs:bytes", "heap-allocs-bytes"},
	{"/gc/heap/allocs:objects", "heap-allocs-objects"},
	{"/gc/cycles/total:gc-cycles", "gc-cycles"},
	{"/gc/heap/live:bytes", "heap-live-bytes"},
	{"/sched/goroutines:goroutines", "goroutines"},
}

// Start answers SIGUSR1 until ctx is done. A non-empty profilePrefix
// turns on the allocation profile; call Start before the program's
// work starts, since only allocations from then on are recorded.
func Start(ctx context.Context, profilePrefix string) {
	if profilePrefix != "" {
		runtime.MemProfileRate = 1
	}
	d := newDumper()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		defer signal.Stop(sig)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
				d.seq++
				line := d.line()
				if profilePrefix != "" {
					// Before the line, which tells the reader the
					// profile is there.
					writeProfile(profilePrefix + "." + strconv.FormatUint(d.seq, 10))
				}
				_, _ = os.Stderr.Write(line)
			}
		}
	}()
}

// dumper prints the line from buffers made once: reading the metrics
// and formatting them allocates nothing.
type dumper struct {
	seq     uint64
	samples []metrics.Sample
	buf     []byte
}

func newDumper() *dumper {
	d := &dumper{samples: make([]metrics.Sample, len(figures)), buf: make([]byte, 0, 512)}
	for i, f := range figures {
		d.samples[i].Name = f.metric
	}
	return d
}

func (d *dumper) line() []byte {
	metrics.Read(d.samples)
	b := append(d.buf[:0], "runtime-stats seq="...)
	b = strconv.AppendUint(b, d.seq, 10)
	for i, f := range figures {
		b = append(b, ' ')
		b = append(b, f.key...)
		b = append(b, '=')
		var v uint64
		if s := d.samples[i]; s.Value.Kind() == metrics.KindUint64 {
			v = s.Value.Uint64()
		}
		b = strconv.AppendUint(b, v, 10)
	}
	b = append(b, '\n')
	d.buf = b
	return b
}

// CPUProfile profiles the process's CPU into path until the returned
// function is called.
func CPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "runtime-stats: writing the CPU profile:", err)
		}
	}, nil
}

// writeProfile writes the allocation profile as of now: the profile is
// brought up to date by a garbage collection first.
func writeProfile(path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 1)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "runtime-stats: writing the allocation profile:", err)
	}
}
