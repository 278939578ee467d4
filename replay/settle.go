package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/source"
)

// settlePoll is how often Settled looks at the pipeline once the
// recording is used up.
const settlePoll = 10 * time.Millisecond

// Settled returns nil once the whole recording has been served and every
// informer has processed it: synced, standing at the resourceVersion of
// the last page or event its reflector took (so nothing is still on its
// way to the queue), queues empty and nothing popped still being
// processed, every listener idle with nothing pending. A replay report is
// taken then. An informer whose
// recording holds no complete list can never sync: that is an error
// saying so, once the rest has settled.
func (s *Source) Settled(ctx context.Context) error {
	if err := s.Finished(ctx); err != nil {
		return err
	}
	canSync := map[string]bool{}
	var never []string
	for _, lw := range s.lws {
		canSync[lw.informer] = lw.canSync()
		if !canSync[lw.informer] {
			never = append(never, lw.informer)
		}
	}
	t := time.NewTicker(settlePoll)
	defer t.Stop()
	for {
		at := map[string]string{}
		for _, lw := range s.lws {
			if canSync[lw.informer] {
				at[lw.informer] = lw.lastSent()
			}
		}
		if s.idle(canSync, at) {
			if len(never) > 0 {
				return fmt.Errorf("%s ends before the initial list of %s was complete, so the replay cannot sync it", s.path, strings.Join(never, ", "))
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the replay of %s was served but not yet processed: %w", s.path, ctx.Err())
		case <-t.C:
		}
	}
}

// SettledWithin is Settled, giving up once the replay has stood still for
// timeout: past when the last record read is due at the replay's speed
// (reading runs ahead of that unless the replay is stuck), and past when
// the last record was read.
func (s *Source) SettledWithin(ctx context.Context, timeout time.Duration) error {
	for {
		deadline := s.deadline(timeout)
		wctx, cancel := context.WithDeadline(ctx, deadline)
		err := s.Settled(wctx)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) || !s.deadline(timeout).After(deadline) {
			return err
		}
	}
}

// deadline is when a replay that makes no more progress gives up.
func (s *Source) deadline(timeout time.Duration) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.progress
	if s.started.After(at) {
		at = s.started
	}
	if sp := s.opts.Speed; sp > 0 {
		if due := s.started.Add(time.Duration(float64(s.end) / sp)); due.After(at) {
			at = due
		}
	}
	return at.Add(timeout)
}

// idle reports whether every informer has processed what its reflector
// took (see pipelineIdle).
func (s *Source) idle(canSync map[string]bool, at map[string]string) bool {
	for _, inf := range s.Informers() {
		rv, ok := at[inf.Name()]
		if !pipelineIdle(inf, canSync[inf.Name()], rv, ok) {
			return false
		}
	}
	return true
}

// pipeline is what pipelineIdle reads of an informer (a *local.Informer).
type pipeline interface {
	HasSynced() bool
	LastSyncResourceVersion() string
	Drained() bool
	State() source.Informer
}

// pipelineIdle reports whether p has processed everything its reflector
// took: synced when it can sync, standing at resourceVersion at (when
// hasAt), its queue empty with nothing popped still being processed, every
// listener idle with nothing pending.
//
// It reads the pipeline upstream first, as a notification travels: the
// reflector, then the queue, then the listeners. A notification moving on
// while it reads is then seen where it was or where it went, never missed
// between two places: read the other way round (as one snapshot does:
// listeners before the queue), a listener found idle can be handed an item
// the queue then no longer holds. An empty queue is not enough either: a
// pop takes its item out before processing it, so an item popped and not
// yet handed to the listeners is in none of them (see local.Informer.Drained).
func pipelineIdle(p pipeline, canSync bool, at string, hasAt bool) bool {
	if canSync && !p.HasSynced() {
		return false
	}
	if hasAt && p.LastSyncResourceVersion() != at {
		return false
	}
	if !p.Drained() {
		return false
	}
	for _, l := range p.State().Listeners {
		if l.Pending > 0 || l.InCallback != "" {
			return false
		}
	}
	return true
}

// Report is the --once report of a settled replay. It leaves out what
// says when the replay ran rather than what was recorded — ages, callback
// latencies and stalls, wall-clock waits, memory estimates sampled on a
// timer, the Go heap, the event ring's totals (the watch stream tap and
// pop batching vary with scheduling) — so the same file gives the same
// report.
func (s *Source) Report() report.Report {
	f := s.Pull(0, 0)
	r := report.Build(s.Kind(), f.Snapshots, f.Reasons, f.EventStats, nil, time.Now())
	r.Events = report.Report{}.Events
	r.Time = time.Time{} // when the replay ran is no part of what was recorded
	for i := range r.Informers {
		inf := &r.Informers[i]
		inf.Freshness = source.Freshness{WatchRestarts: inf.Freshness.WatchRestarts}
		inf.Memory = report.Memory{Objects: inf.Memory.Objects}
		inf.Queue.OldestAgeSeconds = 0
		for j := range inf.Listeners {
			l := &inf.Listeners[j]
			l.InCallbackSeconds, l.OldestPendingSeconds, l.InCallback, l.InCallbackKey = 0, 0, "", ""
			// Callback latencies and stalls are the replaying machine's.
			l.LatencyP50Seconds, l.LatencyP99Seconds, l.Stalled, l.StalledSince = nil, nil, false, nil
		}
	}
	return r
}
