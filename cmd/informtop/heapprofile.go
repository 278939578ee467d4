//go:build heapprofile

package main

// Built with -tags heapprofile (the memory benchmark does), informtop
// writes a heap profile to $INFORMTOP_HEAPPROFILE on SIGUSR1: what the
// dashboard holds, read while it runs. Shipped builds have no such hook.

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
)

func init() {
	path := os.Getenv("INFORMTOP_HEAPPROFILE")
	if path == "" {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		for range sig {
			runtime.GC()
			f, err := os.Create(path)
			if err != nil {
				continue
			}
			_ = pprof.WriteHeapProfile(f)
			_ = f.Close()
			// Beside it, where the rest of the RSS is: the runtime's own
			// figures (heap in use, idle, released; stacks; the rest).
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			_ = os.WriteFile(path+".memstats", fmt.Appendf(nil,
				"HeapAlloc %d\nHeapInuse %d\nHeapIdle %d\nHeapReleased %d\nStackInuse %d\nSys %d\nNextGC %d\nNumGC %d\n",
				ms.HeapAlloc, ms.HeapInuse, ms.HeapIdle, ms.HeapReleased, ms.StackInuse, ms.Sys, ms.NextGC, ms.NumGC), 0o644)
		}
	}()
}
