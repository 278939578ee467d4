package replay

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/report"
)

// settlePoll is how often Settled looks at the pipeline once the
// recording is used up.
const settlePoll = 10 * time.Millisecond

// Settled returns nil once the whole recording has been served and every
// informer has processed it: synced, standing at the resourceVersion of
// the last page or event its reflector took (so nothing is still on its
// way to the queue), queues empty, every listener idle with nothing
// pending. A replay report is taken then. An informer whose
// recording holds no complete list can never sync: that is an error
// saying so, once the rest has settled.
func (s *Source) Settled(ctx context.Context) error {
	if err := s.Finished(ctx); err != nil {
		return err
	}
	canSync := map[string]bool{}
	var never []string
	for _, lw := range s.lws {
		canSync[lw.informer] = lw.listed
		if !lw.listed {
			never = append(never, lw.informer)
		}
	}
	t := time.NewTicker(settlePoll)
	defer t.Stop()
	for {
		at := map[string]string{}
		for _, lw := range s.lws {
			if lw.listed {
				at[lw.informer] = lw.lastSent()
			}
		}
		if idle(s.Snapshots(), canSync, at) {
			if len(never) > 0 {
				return fmt.Errorf("%s ends before the initial list of %s was complete, so the replay cannot sync it", s.rec.Path, strings.Join(never, ", "))
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the replay of %s was served but not yet processed: %w", s.rec.Path, ctx.Err())
		case <-t.C:
		}
	}
}

func idle(snaps []engine.Snapshot, canSync map[string]bool, at map[string]string) bool {
	for _, s := range snaps {
		if (!s.Synced && canSync[s.Name]) || s.Queue.Depth > 0 {
			return false
		}
		if rv, ok := at[s.Name]; ok && s.LastSyncResourceVersion != rv {
			return false
		}
		for _, l := range s.Listeners {
			if l.Pending > 0 || l.InCallback != "" {
				return false
			}
		}
	}
	return true
}

// Report is the --once report of a settled replay. It leaves out what
// says when the replay ran rather than what was recorded — ages, wall-clock
// waits, memory estimates sampled on a timer, the Go heap, the event ring's
// totals (the watch stream tap and pop batching vary with scheduling) — so
// the same file gives the same report.
func (s *Source) Report() report.Report {
	f := s.Pull(0, 0)
	r := report.Build(s.Kind(), f.Snapshots, f.Reasons, f.EventStats, nil, time.Now())
	r.Events = report.Report{}.Events
	for i := range r.Informers {
		inf := &r.Informers[i]
		inf.Freshness = engine.Freshness{WatchRestarts: inf.Freshness.WatchRestarts}
		inf.Memory = report.Memory{Objects: inf.Memory.Objects}
		inf.Queue.OldestAgeSeconds = 0
		for j := range inf.Listeners {
			l := &inf.Listeners[j]
			l.InCallbackSeconds, l.OldestPendingSeconds, l.InCallback, l.InCallbackKey = 0, 0, "", ""
		}
	}
	return r
}
