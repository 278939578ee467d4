package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/instr"
)

// report is the machine-readable document of SPEC §8. Field names are the
// stable contract; add fields, never rename them.
type report struct {
	Source    string           `json:"source"`
	Synced    bool             `json:"synced"`
	Informers []informerReport `json:"informers"`
	Events    instr.RingStats  `json:"events"`
}

type informerReport struct {
	Name                    string           `json:"name"`
	Resource                string           `json:"resource"`
	QueueKind               string           `json:"queueKind"`
	Synced                  bool             `json:"synced"`
	LastSyncResourceVersion string           `json:"lastSyncResourceVersion"`
	Queue                   queueReport      `json:"queue"`
	Store                   storeReport      `json:"store"`
	Reflector               reflectorReport  `json:"reflector"`
	Listeners               []listenerReport `json:"listeners"`
}

type queueReport struct {
	Depth            int     `json:"depth"`
	OldestAgeSeconds float64 `json:"oldestAgeSeconds"`
	Added            uint64  `json:"added"`
	Popped           uint64  `json:"popped"`
}

type storeReport struct {
	Objects int            `json:"objects"`
	Indexes map[string]int `json:"indexes"`
}

type reflectorReport struct {
	Lists       uint64 `json:"lists"`
	ListPages   uint64 `json:"listPages"`
	Watches     uint64 `json:"watches"`
	WatchEvents uint64 `json:"watchEvents"`
	Relists     uint64 `json:"relists"`
	Errors      uint64 `json:"errors"`
	LastError   string `json:"lastError"`
}

type listenerReport struct {
	Name              string  `json:"name"`
	Pending           int     `json:"pending"`
	Capacity          int     `json:"capacity"`
	Delivered         uint64  `json:"delivered"`
	Synced            bool    `json:"synced"`
	Panics            uint64  `json:"panics"`
	InCallbackSeconds float64 `json:"inCallbackSeconds"`
}

// buildReport projects snapshots onto the report; now is when it was taken.
func buildReport(source string, snaps []engine.Snapshot, events instr.RingStats, now time.Time) report {
	r := report{Source: source, Synced: len(snaps) > 0, Informers: make([]informerReport, 0, len(snaps)), Events: events}
	for _, s := range snaps {
		ir := informerReport{
			Name:                    s.Name,
			Resource:                s.Resource,
			QueueKind:               s.QueueKind,
			Synced:                  s.Synced,
			LastSyncResourceVersion: s.LastSyncResourceVersion,
			Queue: queueReport{
				Depth:  s.Queue.Depth,
				Added:  s.Queue.Added.Total(),
				Popped: s.Queue.Popped.Total(),
			},
			Store: storeReport{Objects: s.Store.Objects, Indexes: s.Store.Indexes},
			Reflector: reflectorReport{
				Lists:       s.Reflector.Lists,
				ListPages:   s.Reflector.ListPages,
				Watches:     s.Reflector.Watches,
				WatchEvents: s.Reflector.WatchEvents,
				Relists:     s.Reflector.Relists,
				Errors:      s.Reflector.Errors,
				LastError:   s.Reflector.LastError,
			},
			Listeners: make([]listenerReport, 0, len(s.Listeners)),
		}
		if ir.Store.Indexes == nil {
			ir.Store.Indexes = map[string]int{}
		}
		if !s.Queue.OldestEnqueued.IsZero() && s.Queue.Depth > 0 {
			ir.Queue.OldestAgeSeconds = seconds(now.Sub(s.Queue.OldestEnqueued))
		}
		for _, l := range s.Listeners {
			lr := listenerReport{
				Name:      l.Name,
				Pending:   l.Pending,
				Capacity:  l.Capacity,
				Delivered: l.Delivered.Total(),
				Synced:    l.Synced,
				Panics:    l.Panics,
			}
			if l.InCallback != "" && !l.InCallbackSince.IsZero() {
				lr.InCallbackSeconds = seconds(now.Sub(l.InCallbackSince))
			}
			r.Synced = r.Synced && l.Synced
			ir.Listeners = append(ir.Listeners, lr)
		}
		r.Synced = r.Synced && s.Synced
		r.Informers = append(r.Informers, ir)
	}
	return r
}

// seconds rounds to milliseconds so reports stay readable.
func seconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

func writeJSON(w io.Writer, r report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeTable prints the same report for people: one block per informer.
func writeTable(w io.Writer, r report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "source: %s   synced: %t   events: %d emitted, %d dropped\n", r.Source, r.Synced, r.Events.Emitted, r.Events.Dropped)
	for _, inf := range r.Informers {
		fmt.Fprintf(w, "\n%s (%s, %s)  synced: %t  resourceVersion: %s\n", inf.Name, inf.Resource, inf.QueueKind, inf.Synced, inf.LastSyncResourceVersion)
		fmt.Fprintf(w, "  queue: depth %d, oldest %.1fs, added %d, popped %d\n", inf.Queue.Depth, inf.Queue.OldestAgeSeconds, inf.Queue.Added, inf.Queue.Popped)
		fmt.Fprintf(w, "  store: %d objects%s\n", inf.Store.Objects, indexSummary(inf.Store.Indexes))
		rf := inf.Reflector
		fmt.Fprintf(w, "  reflector: %s (%s), %s, %s, %s, %s\n", plural(rf.Lists, "list"), plural(rf.ListPages, "page"),
			plural(rf.Relists, "relist"), plural(rf.Watches, "watch"), plural(rf.WatchEvents, "watch event"), plural(rf.Errors, "error"))
		if rf.LastError != "" {
			fmt.Fprintf(w, "  last error: %s\n", rf.LastError)
		}
		if len(inf.Listeners) == 0 {
			continue
		}
		// Numbers align right; names are padded to one width first so
		// that they read left-aligned.
		nameW := len("listener")
		for _, l := range inf.Listeners {
			nameW = max(nameW, len(l.Name))
		}
		fmt.Fprintf(tw, "  %-*s\tpending\tcapacity\tdelivered\tsynced\tpanics\tin callback\t\n", nameW, "listener")
		for _, l := range inf.Listeners {
			fmt.Fprintf(tw, "  %-*s\t%d\t%d\t%d\t%t\t%d\t%.1fs\t\n", nameW, l.Name, l.Pending, l.Capacity, l.Delivered, l.Synced, l.Panics, l.InCallbackSeconds)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func indexSummary(idx map[string]int) string {
	if len(idx) == 0 {
		return ""
	}
	parts := make([]string, 0, len(idx))
	for name, n := range idx {
		parts = append(parts, fmt.Sprintf("%s: %d values", name, n))
	}
	slices.Sort(parts)
	return " (" + strings.Join(parts, ", ") + ")"
}

// plural is "1 watch", "3 watches", "0 lists".
func plural(n uint64, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "ch"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
