// Package report is the machine-readable report (docs/report.md): its types, how one
// is built from snapshots, and its JSON and table output. It imports no UI,
// so a controller embedding the agent can build one too.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/shared/termsafe"
	"github.com/informtop/informtop/agent/source"
)

// Report is the machine-readable document (docs/report.md). Field names are the
// stable contract; add fields, never rename them.
type Report struct {
	Source string `json:"source"`
	// Scope is where it was taken; Time when; InformtopVersion by which
	// build, so reports from many clusters can be told apart.
	Scope
	Time             time.Time        `json:"time"`
	InformtopVersion string           `json:"informtopVersion"`
	Synced           bool             `json:"synced"`
	Informers        []Informer       `json:"informers"`
	Events           source.RingStats `json:"events"`
	// Workqueues are the controller's workqueues (attach to an agent given
	// agent.Options.Workqueues), sorted by name; absent when the source
	// sees none.
	Workqueues []Workqueue `json:"workqueues,omitempty"`
	// Paused: processing was paused when the report was taken, by
	// PausedBy ("you", "the scenario"); a queue's depth then is the
	// lesson's, not a backlog.
	Paused   bool          `json:"paused"`
	PausedBy source.Pauser `json:"pausedBy,omitempty"`
	// Scenario, Step, ScriptEnded and Notes are a demo scenario's lesson
	// (SetScript): which, how far its script got, and what it said.
	Scenario    string              `json:"scenario,omitempty"`
	Step        string              `json:"step,omitempty"`
	ScriptEnded bool                `json:"scriptEnded,omitempty"`
	Notes       []source.ScriptNote `json:"notes,omitempty"`
}

// SetScript adds a scenario's script state to the report.
func (r *Report) SetScript(s source.Script) {
	r.Scenario, r.Step, r.ScriptEnded, r.Notes = s.Scenario, s.Step, s.Ended, s.Notes
}

// Scope is what a report covers: the kubeconfig context and API server
// (or the agent or recording read), the namespace and the label selector.
// Fields the source does not have are empty.
type Scope struct {
	Context       string `json:"context"`
	Server        string `json:"server"`
	Namespace     string `json:"namespace"`
	AllNamespaces bool   `json:"allNamespaces"`
	Selector      string `json:"selector"`
}

// Informer is one informer's part of the report.
type Informer struct {
	Name     string `json:"name"`
	Resource string `json:"resource"`
	// Namespace ("" every namespace, or cluster-scoped), Group ("" the
	// core group) and Version say what it watches; "" when unknown.
	Namespace string `json:"namespace"`
	Group     string `json:"group"`
	Version   string `json:"version"`
	// Implementation is whose informer it is (source.ImplementationEngine,
	// source.ImplementationClientGo); "" when the source does not say.
	Implementation string           `json:"implementation,omitempty"`
	QueueKind      source.QueueKind `json:"queueKind"`
	Synced         bool             `json:"synced"`
	// NotSyncedReason says why the informer has not synced; "" once it has.
	NotSyncedReason         string     `json:"notSyncedReason"`
	LastSyncResourceVersion string     `json:"lastSyncResourceVersion"`
	Queue                   Queue      `json:"queue"`
	Store                   Store      `json:"store"`
	Reflector               Reflector  `json:"reflector"`
	Listeners               []Listener `json:"listeners"`
	// Server is what the API server says about the resource (kube, when
	// the user may read its /metrics; "available": false and why when not).
	Server *source.ServerStats `json:"server,omitempty"`
	// Verify is the comparison with the API server, with --verify.
	Verify *Verify `json:"verify,omitempty"`
	// Freshness says how recently the server was heard from; Silent warns
	// of a watch that delivers nothing (see source.SilentAfter).
	Freshness source.Freshness `json:"freshness"`
	Memory    Memory           `json:"memory"`
	// Unknown names the fields the source cannot know, each with why;
	// those fields are null (see markUnknown).
	Unknown map[string]string `json:"unknown,omitempty"`
}

// Queue is the queue between reflector and indexer.
type Queue struct {
	Depth            int     `json:"depth"`
	OldestAgeSeconds float64 `json:"oldestAgeSeconds"`
	Added            uint64  `json:"added"`
	Popped           uint64  `json:"popped"`
}

// Store is the informer's cache.
type Store struct {
	Objects int            `json:"objects"`
	Indexes map[string]int `json:"indexes"`
}

// Reflector is what the reflector did.
type Reflector struct {
	Lists     uint64 `json:"lists"`
	ListPages uint64 `json:"listPages"`
	// ListStreamed: the newest list came as a WatchList stream, not pages.
	ListStreamed bool   `json:"listStreamed"`
	Watches      uint64 `json:"watches"`
	// WatchEvents counts the ADDED, MODIFIED and DELETED events the
	// reflector handed to its queue, as the dashboard does; Bookmarks the
	// BOOKMARKs, which carry no object and change no cache.
	WatchEvents uint64 `json:"watchEvents"`
	Bookmarks   uint64 `json:"bookmarks"`
	Relists     uint64 `json:"relists"`
	Errors      uint64 `json:"errors"`
	LastError   string `json:"lastError"`
}

// Listener is one event handler registration.
type Listener struct {
	Name    string `json:"name"`
	Pending int    `json:"pending"`
	// PendingEstimated: Pending is a lower bound (source.Listener's).
	PendingEstimated  bool             `json:"pendingEstimated,omitempty"`
	Capacity          int              `json:"capacity"`
	Delivered         uint64           `json:"delivered"`
	DeliveredByType   source.Delivered `json:"deliveredByType"`
	Synced            bool             `json:"synced"`
	Panics            uint64           `json:"panics"`
	InCallbackSeconds float64          `json:"inCallbackSeconds"`
	// InCallback and InCallbackKey say which callback (OnAdd, OnUpdate,
	// OnDelete) the handler is inside, on which object; empty when idle.
	InCallback    string `json:"inCallback,omitempty"`
	InCallbackKey string `json:"inCallbackKey,omitempty"`
	// OldestPendingSeconds is how far behind the handler is: the age of the
	// oldest notification it has not finished (the one in progress
	// included), to within a second; 0 when it has none.
	OldestPendingSeconds float64 `json:"oldestPendingSeconds"`
	// CacheMutations counts the cached objects the handler changed, found
	// when the informer runs with mutation attribution (the demo does);
	// LastCacheMutation is the latest, with the fields changed.
	CacheMutations    uint64                `json:"cacheMutations"`
	LastCacheMutation *source.CacheMutation `json:"lastCacheMutation,omitempty"`
	// Stalled says the handler has been in one callback longer than
	// source.StallAfter; StalledSince is when that callback started.
	Stalled      bool       `json:"stalled"`
	StalledSince *time.Time `json:"stalledSince,omitempty"`
	// Frame is where the stalled call was found, once it was.
	Frame *source.StackFrame `json:"frame,omitempty"`
	// LatencyP50Seconds and LatencyP99Seconds are over the handler's
	// recent calls that returned; null before the first (unknown, not 0).
	LatencyP50Seconds *float64 `json:"latencyP50Seconds"`
	LatencyP99Seconds *float64 `json:"latencyP99Seconds"`
	// InCallbackAtLeast: InCallbackSeconds is a lower bound, what
	// consecutive goroutine dumps saw (attach --pprof).
	InCallbackAtLeast bool `json:"inCallbackAtLeast,omitempty"`
	// Unknown names the fields the source cannot know, each with why;
	// those fields are null.
	Unknown map[string]string `json:"unknown,omitempty"`
}

// Build projects snapshots and workqueues onto the report; now is when it
// was taken. The report keeps its own copy of queues.
func Build(src string, snaps []source.Informer, reasons map[string]string, events source.RingStats, queues []source.Workqueue, now time.Time) Report {
	r := Report{Source: src, Time: now.UTC(), Synced: len(snaps) > 0, Informers: make([]Informer, 0, len(snaps)), Events: events}
	for _, q := range queues {
		r.Workqueues = append(r.Workqueues, Workqueue{
			Name: q.Name, Depth: q.Depth, Adds: q.Adds, Retries: q.Retries,
			QueueLatencyMeanSeconds: fineSeconds(q.QueueLatencyMean), QueueLatencyMaxSeconds: fineSeconds(q.QueueLatencyMax),
			WorkDurationMeanSeconds: fineSeconds(q.WorkDurationMean), WorkDurationMaxSeconds: fineSeconds(q.WorkDurationMax),
			UnfinishedWorkSeconds: fineSeconds(q.UnfinishedWork), LongestRunningSeconds: fineSeconds(q.LongestRunning),
		})
	}
	for _, s := range snaps {
		ir := Informer{
			Name:                    s.Name,
			Implementation:          s.Implementation,
			Namespace:               s.Namespace,
			Group:                   s.Group,
			Version:                 s.Version,
			Resource:                s.Resource,
			QueueKind:               s.QueueKind,
			Synced:                  s.Synced,
			NotSyncedReason:         say.Reason(reasons, s, now),
			LastSyncResourceVersion: s.LastSyncResourceVersion,
			Queue: Queue{
				Depth:  s.Queue.Depth,
				Added:  s.Queue.Added.Total(),
				Popped: s.Queue.Popped.Total(),
			},
			Store: Store{Objects: s.Store.Objects, Indexes: s.Store.Indexes},
			Reflector: Reflector{
				Lists:        s.Reflector.Lists,
				ListPages:    s.Reflector.ListPages,
				ListStreamed: s.Reflector.ListStreamed,
				Watches:      s.Reflector.Watches,
				WatchEvents:  s.Reflector.WatchEvents - min(s.Reflector.WatchBookmarks, s.Reflector.WatchEvents),
				Bookmarks:    s.Reflector.WatchBookmarks,
				Relists:      s.Reflector.Relists,
				Errors:       s.Reflector.Errors,
				LastError:    s.Reflector.LastError,
			},
			Listeners: make([]Listener, 0, len(s.Listeners)),
			Freshness: source.FreshnessOf(s, now),
			Memory:    memoryOf(s.Memory),
		}
		if ir.Store.Indexes == nil {
			ir.Store.Indexes = map[string]int{}
		}
		if !s.Queue.OldestEnqueued.IsZero() && s.Queue.Depth > 0 {
			ir.Queue.OldestAgeSeconds = seconds(now.Sub(s.Queue.OldestEnqueued))
		}
		for _, l := range s.Listeners {
			lr := Listener{
				Name:             l.Name,
				Pending:          l.Pending,
				PendingEstimated: l.PendingEstimated,
				Capacity:         l.Capacity,
				Delivered:        l.Delivered.Total(),
				DeliveredByType:  l.Delivered,
				Synced:           l.Synced,
				Panics:           l.Panics,

				CacheMutations:    l.CacheMutations,
				LastCacheMutation: l.LastCacheMutation,

				OldestPendingSeconds: seconds(l.OldestPendingAge(now)),
			}
			if l.Delivered.Total() > 0 {
				p50, p99 := fineSeconds(l.LatencyP50), fineSeconds(l.LatencyP99)
				lr.LatencyP50Seconds, lr.LatencyP99Seconds = &p50, &p99
			}
			if since, stalled := l.StalledSince(now, source.StallAfter); stalled {
				lr.Stalled, lr.StalledSince = true, &since
				if l.Frame != nil {
					f := *l.Frame
					lr.Frame = &f
				}
			}
			if l.Frame != nil && l.InCallback != "" && s.Implementation == source.ImplementationPprof {
				// A dump shows where every call is, stalled or not.
				f := *l.Frame
				lr.Frame = &f
			}
			if l.InCallback != "" && !l.InCallbackSince.IsZero() {
				lr.InCallbackSeconds = seconds(now.Sub(l.InCallbackSince))
				lr.InCallback, lr.InCallbackKey = l.InCallback, l.InCallbackKey
			}
			r.Synced = r.Synced && l.Synced
			ir.Listeners = append(ir.Listeners, lr)
		}
		markUnknown(&ir, s.Implementation)
		r.Synced = r.Synced && s.Synced
		r.Informers = append(r.Informers, ir)
	}
	return r
}

// seconds rounds to milliseconds so reports stay readable.
func seconds(d time.Duration) float64 { return humanize.Seconds(d, time.Millisecond) }

// fineSeconds keeps microseconds: a workqueue's work often takes less than
// a millisecond.
func fineSeconds(d time.Duration) float64 { return humanize.Seconds(d, time.Microsecond) }

// WriteJSON prints the report as indented JSON.
func WriteJSON(w io.Writer, r Report) error { return writeIndented(w, r) }

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteTable prints the same report for people: one block per informer.
// Every text that came from the API server or an attached agent (names,
// keys, errors, resourceVersions) goes through safe: it is printed on a
// terminal, and each field must stay on its line.
func WriteTable(w io.Writer, r Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "source: %s   synced: %t   events: %s emitted, %s dropped\n", safe(r.Source), r.Synced, humanize.Count(r.Events.Emitted), humanize.Count(r.Events.Dropped))
	if r.Scenario != "" {
		ended := "running"
		if r.ScriptEnded {
			ended = "ended"
		}
		fmt.Fprintf(w, "scenario: %s, step %q, script %s\n", safe(r.Scenario), safe(r.Step), ended)
	}
	if r.Paused {
		fmt.Fprintf(w, "processing paused by %s: the queues hold what came in since\n", safe(string(r.PausedBy)))
	}
	saidUnknown := false
	for _, inf := range r.Informers {
		if inf.Implementation == source.ImplementationPprof {
			if !saidUnknown {
				// Once for the report: every such informer lacks the same.
				fmt.Fprintf(w, "\nread from goroutine dumps: %s and listeners' %s: %s\n", strings.Join(unknownFields(inf.Unknown), ", "),
					strings.Join(unknownFields(pprofListenerUnknown), ", "), whyDump)
				saidUnknown = true
			}
			fmt.Fprintf(w, "\n%s (%s)\n", safe(inf.Name), safe(inf.Implementation))
			if err := writeListeners(w, tw, inf); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(w, "\n%s (%s, %s)  synced: %t  resourceVersion: %s\n", safe(inf.Name), safe(inf.Resource), inf.QueueKind, inf.Synced, safe(inf.LastSyncResourceVersion))
		if inf.NotSyncedReason != "" {
			fmt.Fprintf(w, "  not synced: %s\n", safe(inf.NotSyncedReason))
		}
		if inf.Implementation == source.ImplementationClientGo {
			fmt.Fprintf(w, "  queue: client-go's own, not visible from outside the informer\n")
		} else {
			fmt.Fprintf(w, "  queue: depth %s, oldest %s, added %s, popped %s\n", humanize.Count(inf.Queue.Depth), humanize.Tenths(inf.Queue.OldestAgeSeconds),
				humanize.Count(inf.Queue.Added), humanize.Count(inf.Queue.Popped))
		}
		fmt.Fprintf(w, "  store: %s%s\n", humanize.Plural(inf.Store.Objects, "object"), indexSummary(inf.Store.Indexes))
		rf := inf.Reflector
		fmt.Fprintf(w, "  reflector: %s, %s, %s, %s, %s, %s\n", listText(rf),
			humanize.Plural(rf.Relists, "relist"), humanize.Plural(rf.Watches, "watch"), humanize.Plural(rf.WatchEvents, "watch event"),
			humanize.Plural(rf.Bookmarks, "bookmark"), humanize.Plural(rf.Errors, "error"))
		if rf.LastError != "" {
			fmt.Fprintf(w, "  last error: %s\n", safe(rf.LastError))
		}
		writeFreshness(w, inf.Freshness)
		writeMemory(w, inf.Memory)
		if inf.Server != nil {
			fmt.Fprintf(w, "  server: %s\n", safe(serverLine(inf.Server)))
		}
		if inf.Verify != nil {
			fmt.Fprintf(w, "  verify: %s\n", safe(inf.Verify.sentence()))
		}
		if err := writeListeners(w, tw, inf); err != nil {
			return err
		}
	}
	if len(r.Workqueues) > 0 {
		fmt.Fprintln(w)
	}
	for _, q := range r.Workqueues {
		fmt.Fprintf(w, "workqueue %s: depth %s, adds %s, retries %s, waited max %s, work max %s", safe(q.Name), humanize.Count(q.Depth), humanize.Count(q.Adds), humanize.Count(q.Retries),
			duration(q.QueueLatencyMaxSeconds), duration(q.WorkDurationMaxSeconds))
		if q.LongestRunningSeconds > 0 {
			fmt.Fprintf(w, ", longest running %s", duration(q.LongestRunningSeconds))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// writeListeners prints an informer's listeners: a table, then a line
// for each stalled one and each that changed cached objects.
func writeListeners(w io.Writer, tw *tabwriter.Writer, inf Informer) error {
	if len(inf.Listeners) == 0 {
		return nil
	}
	// Numbers align right; names are padded to one width first so
	// that they read left-aligned.
	nameW := len("listener")
	for _, l := range inf.Listeners {
		nameW = max(nameW, len(safe(l.Name)))
	}
	fmt.Fprintf(tw, "  %-*s\tpending\tcapacity\tdelivered\tsynced\tpanics\tin callback\tbehind\t\n", nameW, "listener")
	for _, l := range inf.Listeners {
		if _, dump := l.Unknown["pending"]; dump {
			// Read from goroutine dumps: the counts are unknown.
			fmt.Fprintf(tw, "  %-*s\t?\t?\t?\t%t\t?\t%s\t?\t\n", nameW, safe(l.Name), l.Synced, callbackTime(l))
			continue
		}
		fmt.Fprintf(tw, "  %-*s\t%s\t%s\t%d\t%t\t%d\t%s\t%s\t\n", nameW, safe(l.Name), pendingText(l), capacityText(l), l.Delivered, l.Synced, l.Panics,
			humanize.Tenths(l.InCallbackSeconds), humanize.Tenths(l.OldestPendingSeconds))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range inf.Listeners {
		if l.Stalled && l.StalledSince != nil {
			if l.InCallbackAtLeast {
				fmt.Fprintf(w, "  %s is stalled: in %s for %s (goroutine dumps since %s)\n", safe(l.Name), safe(l.InCallback),
					callbackTime(l), l.StalledSince.UTC().Format("15:04:05"))
			} else {
				fmt.Fprintf(w, "  %s is stalled: in %s of %s since %s (%s)\n", safe(l.Name), safe(l.InCallback), safe(l.InCallbackKey),
					l.StalledSince.UTC().Format("15:04:05"), humanize.Tenths(l.InCallbackSeconds))
			}
			if l.Frame != nil {
				fmt.Fprintf(w, "    stuck in %s\n", safe(l.Frame.String()))
			}
		}
		if m := l.LastCacheMutation; l.CacheMutations > 0 && m != nil {
			fmt.Fprintf(w, "  %s changed %s, last %s in %s: %s\n", safe(l.Name), humanize.Plural(l.CacheMutations, "cached object"), safe(m.Key), safe(m.Callback), safe(strings.Join(m.Fields, ", ")))
		}
	}
	return nil
}

// capacityText is a listener's buffer size, "unknown" where the source
// cannot know it (client-go's own informer).
func capacityText(l Listener) string {
	if _, unknown := l.Unknown["capacity"]; unknown {
		return "unknown"
	}
	return strconv.Itoa(l.Capacity)
}

// callbackTime is how long a listener has been in its callback: "≥6s"
// where that is a lower bound, "–" when it is in none.
func callbackTime(l Listener) string {
	if l.InCallback == "" {
		return "–"
	}
	if l.InCallbackAtLeast {
		return "≥" + humanize.Tenths(l.InCallbackSeconds)
	}
	return humanize.Tenths(l.InCallbackSeconds)
}

// safe is termsafe.String: text the table prints that informtop did not write.
func safe(s string) string { return termsafe.String(s) }

// Workqueue is one controller workqueue in the report; times in seconds,
// as everywhere in the report.
type Workqueue struct {
	Name                    string  `json:"name"`
	Depth                   int64   `json:"depth"`
	Adds                    uint64  `json:"adds"`
	Retries                 uint64  `json:"retries"`
	QueueLatencyMeanSeconds float64 `json:"queueLatencyMeanSeconds"`
	QueueLatencyMaxSeconds  float64 `json:"queueLatencyMaxSeconds"`
	WorkDurationMeanSeconds float64 `json:"workDurationMeanSeconds"`
	WorkDurationMaxSeconds  float64 `json:"workDurationMaxSeconds"`
	UnfinishedWorkSeconds   float64 `json:"unfinishedWorkSeconds"`
	LongestRunningSeconds   float64 `json:"longestRunningSeconds"`
}

// listText describes the lists: "1 list (5 pages)", or "1 list, streamed
// (WatchList)" when the newest came as a stream, which has no pages.
func listText(rf Reflector) string {
	lists := humanize.Plural(rf.Lists, "list")
	if rf.ListStreamed {
		if rf.ListPages == 0 {
			return lists + ", streamed (WatchList)"
		}
		return lists + ", the newest streamed (WatchList), " + humanize.Plural(rf.ListPages, "page") + " before"
	}
	return lists + " (" + humanize.Plural(rf.ListPages, "page") + ")"
}

// duration renders seconds from the report as humanize.Precise does: to
// the millisecond from 1ms on, to the microsecond below.
func duration(secs float64) string {
	return humanize.Precise(time.Duration(secs * float64(time.Second)))
}

// indexSummary is " (app: 4 values, namespace: 3 values)", in index name
// order, or "" for an informer without indexes.
func indexSummary(idx map[string]int) string {
	if len(idx) == 0 {
		return ""
	}
	return " (" + humanize.Tally(idx, func(name string, n int) string { return safe(name) + ": " + humanize.Plural(n, "value") }) + ")"
}

// pendingText is the listener's backlog, "≥N" where it is a lower bound.
func pendingText(l Listener) string {
	if l.PendingEstimated {
		return "≥" + strconv.Itoa(l.Pending)
	}
	return strconv.Itoa(l.Pending)
}
