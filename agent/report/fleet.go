package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// Fleet is `informtop fleet --once --json`: every controller process a
// Prometheus knows from informtop's agents, worst first (docs/fleet.md).
// Field names are the stable contract; add fields, never rename them.
type Fleet struct {
	Source string `json:"source"` // "fleet"
	// Prometheus is the URL queried; Selector the matchers added to
	// every query.
	Prometheus       string    `json:"prometheus"`
	Selector         string    `json:"selector,omitempty"`
	Time             time.Time `json:"time"`
	InformtopVersion string    `json:"informtopVersion"`
	// Status is the source's: a sentence when the fleet was cut or a
	// query failed.
	Status source.Status `json:"status"`
	// Synced: every process is up and every informer and handler
	// registration in it has synced.
	Synced    bool           `json:"synced"`
	Processes []FleetProcess `json:"processes"`
	// Informers are every process's informers in one list, in the
	// processes' order, named "process · informer" as the dashboard
	// names them: the key every source's report has, so a script that
	// reads informers reads the fleet too.
	Informers []Informer `json:"informers"`
}

// FleetProcess is one controller process (one scrape target).
type FleetProcess struct {
	// Name is how the dashboard shows it: namespace/pod, else job ·
	// instance, after "cluster/" when the target names its cluster.
	Name     string `json:"name"`
	Job      string `json:"job"`
	Instance string `json:"instance"`
	// Cluster is the target's cluster label (--cluster-label), part of
	// the process's identity; "" when it has none.
	Cluster string            `json:"cluster,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Up      bool              `json:"up"`
	// Agent is where informtop attach reaches its agent; "" when the
	// target's labels do not say (--agent-label).
	Agent string `json:"agent,omitempty"`
	// Pprof: the target exports client-go's workqueue_* series but none
	// of informtop's (no agent); informtop attach --pprof reads it.
	Pprof bool `json:"pprof,omitempty"`
	// State is what ranked it: stalled, backlog, not synced, stale, down
	// or ok; Reason says it as a sentence, Worst where.
	State  source.Trouble `json:"state"`
	Reason string         `json:"reason,omitempty"`
	Worst  *Worst         `json:"worst,omitempty"`
	// Synced: up, and every informer and handler registration synced.
	Synced bool `json:"synced"`
	// Informers are its informers, named as the process reports them.
	Informers []Informer `json:"informers"`
}

// Worst is the informer (and listener) that ranked a process.
type Worst struct {
	Informer string `json:"informer"`
	Listener string `json:"listener,omitempty"`
	// Seconds is how long the stalled call has run, or how far behind
	// the backlog is.
	Seconds float64            `json:"seconds,omitempty"`
	Pending int                `json:"pending,omitempty"`
	Frame   *source.StackFrame `json:"frame,omitempty"`
}

// BuildFleet projects a fleet source's frame onto the report, ranking its
// processes as the dashboard does at now.
func BuildFleet(f source.Frame, now time.Time) Fleet {
	procs := source.CloneProcesses(f.Processes)
	hs := source.RankProcesses(procs, f.Snapshots, now, source.StallAfter)
	byName := make(map[string]source.Informer, len(f.Snapshots))
	for _, s := range f.Snapshots {
		byName[s.Name] = s
	}
	out := Fleet{Source: "fleet", Time: now.UTC(), Status: f.Status, Synced: true,
		Processes: make([]FleetProcess, 0, len(procs)), Informers: []Informer{}}
	for i, p := range procs {
		h := hs[i]
		said := h
		said.Informer = ownName(h.Informer) // the process is named beside it
		fp := FleetProcess{Name: p.Name(), Job: p.Job, Instance: p.Instance, Cluster: p.Cluster, Labels: p.Labels, Up: p.Up, Agent: p.Agent, Pprof: p.Pprof,
			State: h.Trouble, Reason: say.Health(said, now)}
		var snaps []source.Informer
		for _, n := range p.Informers {
			if s, ok := byName[n]; ok {
				snaps = append(snaps, s)
			}
		}
		r := Build("fleet", snaps, nil, source.RingStats{}, nil, now)
		fp.Synced = p.Up && r.Synced
		fp.Informers = r.Informers
		for j := range fp.Informers {
			inf := &fp.Informers[j]
			for k := range inf.Listeners {
				if l := &inf.Listeners[k]; l.InCallback == source.CallbackUnknown {
					l.InCallback = "" // the series do not say which
				}
			}
			out.Informers = append(out.Informers, *inf)
			inf.Name = ownName(inf.Name)
		}
		if h.Trouble != source.Healthy && h.Trouble != source.Down {
			w := &Worst{Informer: ownName(h.Informer), Listener: h.Listener, Pending: h.Pending, Frame: h.Frame}
			if !h.Since.IsZero() {
				w.Seconds = seconds(now.Sub(h.Since))
			}
			fp.Worst = w
		}
		out.Synced = out.Synced && fp.Synced
		out.Processes = append(out.Processes, fp)
	}
	return out
}

// ownName is an informer's name without the process a fleet prefixes.
func ownName(name string) string {
	if i := strings.LastIndex(name, " · "); i >= 0 {
		return name[i+len(" · "):]
	}
	return name
}

// WriteFleetJSON prints the fleet as indented JSON.
func WriteFleetJSON(w io.Writer, f Fleet) error { return writeIndented(w, f) }

// WriteFleetTable prints the fleet for people: one row per process, worst
// first, then a sentence for each that is not ok.
func WriteFleetTable(w io.Writer, f Fleet) error {
	fmt.Fprintf(w, "prometheus: %s   processes: %d   synced: %t\n", safe(f.Prometheus), len(f.Processes), f.Synced)
	if f.Status.Message != "" {
		fmt.Fprintf(w, "%s\n", safe(f.Status.Message))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROCESS\tSTATE\tWORST\tBACKLOG\tINFORMERS\tAGENT")
	for _, p := range f.Processes {
		synced, backlog, estimated := 0, 0, false
		for _, inf := range p.Informers {
			if inf.Synced {
				synced++
			}
			for _, l := range inf.Listeners {
				backlog += l.Pending
				estimated = estimated || l.PendingEstimated
			}
		}
		agent := p.Agent
		if agent == "" {
			agent = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\t%d/%d\t%s\n", safe(p.Name), p.State, safe(worstText(p.Worst)), lowerBound(estimated && backlog > 0), humanize.Count(backlog), synced, len(p.Informers), safe(agent))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	first := true
	for _, p := range f.Processes {
		if p.Reason == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintf(w, "%s: %s\n", safe(p.Name), safe(p.Reason))
	}
	return nil
}

// lowerBound is "≥" before a backlog that is a lower bound.
func lowerBound(b bool) string {
	if b {
		return "≥"
	}
	return ""
}

// worstText is "informer · listener · how long in frame", as the
// dashboard's Fleet view says it, or "-".
func worstText(w *Worst) string {
	if w == nil {
		return "-"
	}
	parts := []string{w.Informer}
	if w.Listener != "" {
		parts = append(parts, w.Listener)
	}
	if w.Seconds > 0 {
		parts = append(parts, humanize.Duration(time.Duration(w.Seconds*float64(time.Second))))
	}
	s := strings.Join(parts, " · ")
	if w.Frame != nil {
		s += " in " + w.Frame.String()
	}
	return s
}
