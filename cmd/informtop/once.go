package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/termsafe"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
)

// runOnce waits for the sync and for the first read of the API server's
// figures (both within --timeout), lets the workload run for --duration
// (a demo scenario without it: until its script ends), prints one report and stops the source. The exit code is 5
// when a handler has been in one callback longer than --fail-on-stall
// (which ends any of those waits), else 1 when
// something had not synced (nothing is verified then), else 3 when
// --verify found a cache that differs, else 4 when --verify could not
// compare some informer's cache: a difference found is the finding to act
// on, and the informers that could not be checked are named beside it.
func runOnce(ctx context.Context, src source.Source, o *options, stdout, stderr io.Writer) int {
	runCtx, stop := startSource(ctx, src)
	defer stop()

	waiting, stopWatch := watchStalls(runCtx, src, o.failOnStall)
	defer stopWatch()
	waitCtx, cancelWait := context.WithTimeout(waiting, o.timeout)
	defer cancelWait()
	syncErr := o.progress.waitSynced(func() error { return src.WaitSynced(waitCtx) }, src, stderr)
	if errors.Is(syncErr, source.ErrUnreachable) {
		// Waiting would not help: say why now, not after --timeout.
		fmt.Fprintf(stderr, "informtop: %s\n", termsafe.String(syncErr.Error()))
		return exitBadInput
	}
	if r := src.Controls().Server; r != nil {
		// The read started with Run, beside the sync: usually done already.
		r.WaitServerRead(waitCtx)
	}
	cancelWait()
	script := src.Controls().Script
	switch {
	case syncErr != nil:
	case o.duration > 0:
		select {
		case <-time.After(o.duration):
		case <-waiting.Done():
		}
	case script != nil:
		// A scenario's report is its lesson: taken mid-script it would show
		// a queue the script is holding as if it were a backlog.
		name := termsafe.String(script.Script().Scenario)
		fmt.Fprintf(stderr, "informtop: waiting for scenario %s's script to end (--duration reports sooner)\n", name)
		// Bounded, so a script stuck on a condition still gets a report
		// (scriptEnded false and the step it reached say where).
		scriptCtx, cancelScript := context.WithTimeout(waiting, scriptWaitLimit)
		if err := script.WaitScriptEnd(scriptCtx); errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(stderr, "informtop: scenario %s's script did not end within %s; reporting where it is\n", name, scriptWaitLimit)
		}
		cancelScript()
	}
	stalled := stopWatch()
	f := src.Pull(0, 0)
	taken := time.Now()
	r := report.Build(src.Kind(), f.Snapshots, f.Reasons, f.EventStats, f.Workqueues, taken)
	r.SetServer(f.Server)
	r.Paused, r.PausedBy = f.Paused, f.PausedBy
	if script != nil {
		r.SetScript(script.Script())
	}
	r.Scope, r.InformtopVersion = o.scope, currentVersions().informtop
	var unverified []verifyFailure
	if o.verify && syncErr == nil {
		unverified = verifyAll(ctx, src, &r, o.timeout)
	}
	if !writeReport(r, o, stdout, stderr) {
		return exitNotSynced
	}
	stalls := stalledLonger(f, o.failOnStall, taken)
	if len(stalls) == 0 {
		stalls = stalled // the call returned since the watch found it
	}
	if len(stalls) > 0 {
		// A stall explains a sync that did not come, so it is said first.
		for _, line := range stalls {
			fmt.Fprintf(stderr, "informtop: %s\n", line)
		}
		return exitStalled
	}
	switch {
	case r.Synced && (r.Differs() || len(unverified) > 0):
		for _, inf := range r.Informers {
			if v := inf.Verify; v != nil && v.Error == "" && !v.Equal {
				fmt.Fprintf(stderr, "informtop: %s: %s\n", termsafe.String(inf.Name), termsafe.String(v.Sentence()))
			}
		}
		for _, u := range unverified {
			fmt.Fprintf(stderr, "informtop: %s\n", u.sentence(ctx, o.timeout))
		}
		if r.Differs() {
			return exitDiffers
		}
		return exitUnverified
	case r.Synced:
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "informtop: interrupted before every informer and handler had synced; the report shows where it stopped.")
		return exitNotSynced
	case syncErr == nil:
		// Every informer that can sync did; the others have a final reason.
		fmt.Fprintln(stderr, "informtop: not every informer can sync; the report says why.")
		for _, inf := range r.Informers {
			if inf.NotSyncedReason != "" {
				fmt.Fprintf(stderr, "informtop: %s: %s\n", termsafe.String(inf.Name), termsafe.String(inf.NotSyncedReason))
			}
		}
		return exitNotSynced
	default:
		fmt.Fprintf(stderr, "informtop: not every informer and handler synced within %s; the report shows where it stopped. Raise --timeout to wait longer.\n", o.timeout)
		for _, inf := range r.Informers {
			if inf.NotSyncedReason != "" {
				fmt.Fprintf(stderr, "informtop: %s: %s\n", termsafe.String(inf.Name), termsafe.String(inf.NotSyncedReason))
			}
		}
		return exitNotSynced
	}
	return exitOK
}

// scriptWaitLimit bounds --once's wait for a scenario's script: the
// twelve scripts end in 18–51 s (measured with three runs sharing two cores).
const scriptWaitLimit = 5 * time.Minute

// verifyFailure is an informer whose cache could not be compared with the
// API server, and why.
type verifyFailure struct {
	informer string
	err      error
}

// sentence says which informer went unchecked, why, and what to do; ctx
// and timeout are runOnce's, to tell an interruption or --timeout from
// the server's own answer.
func (u verifyFailure) sentence(ctx context.Context, timeout time.Duration) string {
	name, why := termsafe.String(u.informer), termsafe.String(u.err.Error())
	todo := "fix what the error says (the API server must be reachable, and list allowed) and run again"
	switch {
	case ctx.Err() != nil:
		todo = "it was interrupted; run again to check it"
	case errors.Is(u.err, context.DeadlineExceeded):
		todo = fmt.Sprintf("the comparison took longer than --timeout %s; raise --timeout and run again", timeout)
	case errors.Is(u.err, errCannotVerify):
		todo = "--verify needs a source that can list the API server: a cluster, or attach with the kubeconfig flags"
	}
	return fmt.Sprintf("%s: could not verify: %s. Its cache was not compared with the server, so this run checked nothing for it (exit 4): %s.", name, why, todo)
}

// timedOut is a verify that --timeout cut, whatever the error says: with
// the deadline client-go also asks the server for it (?timeout=), so the
// comparison may end in the server's 504 rather than the context's own
// error, and that is no reason to look at RBAC.
type timedOut struct{ error }

func (timedOut) Is(target error) bool { return target == context.DeadlineExceeded }
func (e timedOut) Unwrap() error      { return e.error }

// errCannotVerify is why an informer of a source that cannot list an API
// server (the demo, a replay) goes unverified.
var errCannotVerify = errors.New("cannot compare its caches with a server")

// verifyAll compares every informer's cache with the API server, one
// after the other (each LIST is paged), each bounded by timeout, and
// returns the informers whose comparison could not be made.
func verifyAll(ctx context.Context, src source.Source, r *report.Report, timeout time.Duration) []verifyFailure {
	v := src.Controls().Verifier
	var failed []verifyFailure
	for _, inf := range r.Informers {
		if v == nil {
			err := fmt.Errorf("the %s source %w", src.Kind(), errCannotVerify)
			r.SetVerify(inf.Name, verify.Result{}, err)
			failed = append(failed, verifyFailure{inf.Name, err})
			continue
		}
		vctx, cancel := context.WithTimeout(ctx, timeout)
		res, err := v.Verify(vctx, inf.Name)
		if err != nil && (errors.Is(vctx.Err(), context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)) {
			err = timedOut{err}
		}
		cancel()
		r.SetVerify(inf.Name, res, err)
		if err != nil {
			failed = append(failed, verifyFailure{inf.Name, err})
		}
	}
	return failed
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

// stalledLonger says, a sentence each, which handlers have been in one
// callback longer than limit at now, the longest first; none when limit
// is 0. What a source does not know (which callback, which key: a fleet's
// series and goroutine dumps say neither) is left out, not left blank.
func stalledLonger(f source.Frame, limit time.Duration, now time.Time) []string {
	if limit <= 0 {
		return nil
	}
	type stall struct {
		since time.Time
		line  string
	}
	var stalls []stall
	for _, inf := range f.Snapshots {
		for _, l := range inf.Listeners {
			since, stalled := l.StalledSince(now, limit)
			if !stalled {
				continue
			}
			in := "a callback"
			if l.InCallback != "" && l.InCallback != source.CallbackUnknown {
				in = termsafe.String(l.InCallback)
			}
			if l.InCallbackKey != "" {
				in += " of " + termsafe.String(l.InCallbackKey)
			}
			how := humanize.Elapsed(now.Sub(since), time.Second)
			if inf.Implementation == source.ImplementationPprof {
				how = "≥ " + how // read from goroutine dumps: a lower bound
			}
			where := ""
			if l.Frame != nil {
				where = ", in " + termsafe.String(l.Frame.String())
			}
			stalls = append(stalls, stall{since, fmt.Sprintf("%s: handler %s has been in %s for %s%s, longer than --fail-on-stall %s (exit 5)",
				termsafe.String(inf.Name), termsafe.String(l.Name), in, how, where, limit)})
		}
	}
	slices.SortStableFunc(stalls, func(a, b stall) int { return a.since.Compare(b.since) })
	out := make([]string, len(stalls))
	for i, s := range stalls {
		out[i] = s.line
	}
	return out
}
