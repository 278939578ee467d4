package source

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// Process is one controller process a fleet source knows of: one scrape target exporting informtop's series.
type Process struct {
	Job      string `json:"job"`
	Instance string `json:"instance"`
	// Cluster is the value of the target's cluster label (the fleet's
	// --cluster-label, cluster by default), "" when it has none. It is
	// part of the process's identity: two targets alike in everything
	// else are two processes in two clusters.
	Cluster string `json:"cluster,omitempty"`
	// Labels are the target's other labels: namespace, pod, cluster…
	Labels map[string]string `json:"labels,omitempty"`
	Up     bool              `json:"up"`
	// Agent is where attach reaches the process's agent; "" when unknown.
	Agent string `json:"agent,omitempty"`
	// Informers are the names of this process's entries in Frame.Snapshots.
	Informers []string `json:"informers"`
	// Pprof: the target exports client-go's workqueue_* series but none
	// of informtop's, so it runs no agent; attaching reads its goroutine
	// dumps instead (attach --pprof).
	Pprof bool `json:"pprof,omitempty"`
}

// Name is how a person tells the process apart in a list: namespace/pod
// when the target says, else job · instance; after its cluster and a
// slash when it has one (eu-1/shop/orders-7d9c), so the same pod name in
// two clusters is two names.
func (p Process) Name() string {
	name := strings.TrimPrefix(p.Job+" · "+p.Instance, " · ")
	if pod := p.Labels["pod"]; pod != "" {
		name = pod
		if ns := p.Labels["namespace"]; ns != "" {
			name = ns + "/" + pod
		}
	}
	if p.Cluster != "" {
		return p.Cluster + "/" + name
	}
	return name
}

// Clone is a copy of p that shares nothing with it.
func (p Process) Clone() Process {
	p.Labels = maps.Clone(p.Labels)
	p.Informers = slices.Clone(p.Informers)
	return p
}

// CloneProcesses clones every process of ps; nil stays nil, so sources
// other than a fleet keep Frame.Processes nil.
func CloneProcesses(ps []Process) []Process {
	if ps == nil {
		return nil
	}
	out := make([]Process, len(ps))
	for i, p := range ps {
		out[i] = p.Clone()
	}
	return out
}

// compareProcessNames orders processes alike in health by name, then by
// their labels, so the order is stable from frame to frame.
func compareProcessNames(a, b Process) int {
	return cmp.Or(strings.Compare(a.Name(), b.Name()), strings.Compare(a.Cluster, b.Cluster), strings.Compare(a.Job, b.Job), strings.Compare(a.Instance, b.Instance))
}

// CallbackUnknown is Listener.InCallback when a source knows a handler is
// in a callback but not which: Prometheus' series say for how long, not
// OnAdd, OnUpdate or OnDelete. Views print it where the callback's name
// goes ("in a callback for 42s").
const CallbackUnknown = "a callback"
