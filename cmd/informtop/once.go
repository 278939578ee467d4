package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/informtop/informtop/report"
	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/verify"
)

// runOnce waits for the sync and for the first read of the API server's
// figures (both within --timeout), lets the workload run for --duration,
// prints one report and stops the source. Exit code 1 when something had
// not synced.
func runOnce(ctx context.Context, src source.Source, o *options, stdout, stderr io.Writer) int {
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { src.Run(runCtx) })
	defer wg.Wait()
	defer cancel()

	waitCtx, cancelWait := context.WithTimeout(runCtx, o.timeout)
	defer cancelWait()
	syncErr := o.progress.waitSynced(func() error { return src.WaitSynced(waitCtx) }, src, stderr)
	if r, ok := src.(source.ServerReader); ok {
		// The read started with Run, beside the sync: usually done already.
		r.WaitServerRead(waitCtx)
	}
	cancelWait()
	if syncErr == nil && o.duration > 0 {
		select {
		case <-time.After(o.duration):
		case <-ctx.Done():
		}
	}
	f := src.Pull(0, 0)
	r := report.Build(src.Kind(), f.Snapshots, f.Reasons, f.EventStats, f.Workqueues, time.Now())
	r.SetServer(f.Server)
	if o.verify && syncErr == nil {
		verifyAll(ctx, src, &r, o.timeout)
	}
	if !writeReport(r, o, stdout, stderr) {
		return 1
	}
	switch {
	case r.Synced && r.Differs():
		for _, inf := range r.Informers {
			if v := inf.Verify; v != nil && v.Error == "" && !v.Equal {
				fmt.Fprintf(stderr, "informtop: %s: %s\n", inf.Name, v.Sentence())
			}
		}
		return 3
	case r.Synced:
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "informtop: interrupted before every informer and handler had synced; the report shows where it stopped.")
		return 1
	default:
		fmt.Fprintf(stderr, "informtop: not every informer and handler synced within %s; the report shows where it stopped. Raise --timeout to wait longer.\n", o.timeout)
		for _, inf := range r.Informers {
			if inf.NotSyncedReason != "" {
				fmt.Fprintf(stderr, "informtop: %s: %s\n", inf.Name, inf.NotSyncedReason)
			}
		}
		return 1
	}
	return 0
}

// verifyAll compares every informer's cache with the API server, one
// after the other (each LIST is paged), each bounded by timeout.
func verifyAll(ctx context.Context, src source.Source, r *report.Report, timeout time.Duration) {
	v, ok := src.(source.Verifier)
	for _, inf := range r.Informers {
		if !ok {
			r.SetVerify(inf.Name, verify.Result{}, fmt.Errorf("the %s source cannot compare its caches with a server", src.Kind()))
			continue
		}
		vctx, cancel := context.WithTimeout(ctx, timeout)
		res, err := v.Verify(vctx, inf.Name)
		cancel()
		r.SetVerify(inf.Name, res, err)
	}
}

// writeReport prints r as --json asks, a table otherwise; false (with the
// sentence on stderr) when it could not be written.
func writeReport(r report.Report, o *options, stdout, stderr io.Writer) bool {
	write := report.WriteTable
	if o.json {
		write = report.WriteJSON
	}
	if err := write(stdout, r); err != nil {
		fmt.Fprintf(stderr, "informtop: could not write the report: %v\n", err)
		return false
	}
	return true
}
