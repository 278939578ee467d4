//go:build heapprofile

package main

// Built with -tags heapprofile (the memory benchmark does), informtop
// writes a heap profile to $INFORMTOP_HEAPPROFILE on SIGUSR1: what the
// dashboard holds, read while it runs. Shipped builds have no such hook.

import (
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
		}
	}()
}
