package fleet

import (
	"math"

	"github.com/informtop/informtop/agent/source"
)

// The labels the agent puts on its own series (agent/collector.go); every
// other label of a series is its scrape target's (job, instance,
// namespace, pod, cluster…), which names the process.
var agentLabels = map[string]bool{
	"__name__": true, "name": true, "group": true, "version": true, "resource": true,
	"listener": true, "type": true, "frame": true,
}

// family is one informtop series name and where its value goes. A fleet
// refresh asks one query per family, so no answer holds more than one
// family's series (a name regexp over every informtop_ series would hold
// them all at once).
type family struct {
	metric string
	// informer or listener sets the value on the informer (or listener)
	// the series is of; exactly one is set.
	informer func(a *informerAcc, v float64)
	listener func(l *listenerAcc, v float64, m labels)
}

// families are every informtop series the fleet reads: the informer ones
// (labels name, group, version, resource) and the listener ones (listener
// too). The workqueue series are the dashboard's of one process, not the
// fleet's: they are not read.
var families = []family{
	{metric: "informtop_informer_synced", informer: func(a *informerAcc, v float64) { a.inf.Synced = v == 1 }},
	{metric: "informtop_informer_queued_items", informer: func(a *informerAcc, v float64) { a.inf.Queue.Depth, a.queueKnown = count(v), true }},
	{metric: "informtop_informer_oldest_queued_item_age_seconds", informer: func(a *informerAcc, v float64) { a.queueAge = v }},
	{metric: "informtop_reflector_lists_total", informer: func(a *informerAcc, v float64) { a.inf.Reflector.Lists = counter(v) }},
	{metric: "informtop_reflector_list_pages_total", informer: func(a *informerAcc, v float64) { a.inf.Reflector.ListPages = counter(v) }},
	{metric: "informtop_reflector_watches_total", informer: func(a *informerAcc, v float64) { a.inf.Reflector.Watches = counter(v) }},
	{metric: "informtop_reflector_relists_total", informer: func(a *informerAcc, v float64) { a.inf.Reflector.Relists = counter(v) }},
	{metric: "informtop_reflector_errors_total", informer: func(a *informerAcc, v float64) { a.inf.Reflector.Errors = counter(v) }},
	{metric: "informtop_informer_store_objects", informer: func(a *informerAcc, v float64) { a.inf.Store.Objects = count(v) }},
	{metric: "informtop_informer_silent", informer: func(a *informerAcc, v float64) { a.silent = v == 1 }},
	{metric: "informtop_informer_quiet_seconds", informer: func(a *informerAcc, v float64) { a.quiet, a.quietKnown = v, true }},
	{metric: "informtop_informer_store_estimated_bytes", informer: func(a *informerAcc, v float64) { a.inf.Memory.EstimatedBytes = finite(v) }},

	{metric: "informtop_listener_pending_notifications", listener: func(l *listenerAcc, v float64, _ labels) { l.l.Pending = count(v) }},
	{metric: "informtop_listener_buffer_capacity", listener: func(l *listenerAcc, v float64, _ labels) { l.l.Capacity = count(v) }},
	{metric: "informtop_listener_callback_in_progress_seconds", listener: func(l *listenerAcc, v float64, m labels) {
		// A call that outlived 2 s gets a series of its own, labelled
		// with its frame; the frameless one lingers until staleness ends
		// it. The longest is the call in progress.
		if v > l.inCallback {
			l.inCallback = v
			l.frame = m["frame"]
		}
	}},
	{metric: "informtop_listener_delivered_total", listener: func(l *listenerAcc, v float64, m labels) {
		n := counter(v)
		switch m["type"] {
		case "add":
			l.l.Delivered.Add = n
		case "update":
			l.l.Delivered.Update = n
		case "delete":
			l.l.Delivered.Delete = n
		case "sync":
			l.l.Delivered.Sync = n
		}
	}},
	{metric: "informtop_listener_panics_total", listener: func(l *listenerAcc, v float64, _ labels) { l.l.Panics = counter(v) }},
	{metric: "informtop_listener_cache_mutations_total", listener: func(l *listenerAcc, v float64, _ labels) { l.l.CacheMutations = counter(v) }},
	{metric: "informtop_listener_synced", listener: func(l *listenerAcc, v float64, _ labels) { l.l.Synced = v == 1 }},
	{metric: "informtop_listener_oldest_pending_seconds", listener: func(l *listenerAcc, v float64, _ labels) { l.oldest = v }},
}

// informerAcc is one informer while a refresh's answers come in.
type informerAcc struct {
	inf source.Informer
	// queueKnown: the agent exported the informer's queue, which it does
	// for every informer but client-go's own.
	queueKnown bool
	queueAge   float64
	silent     bool
	quiet      float64
	quietKnown bool
	listeners  map[string]*listenerAcc
}

// listenerAcc is one listener while a refresh's answers come in.
type listenerAcc struct {
	l          source.Listener
	inCallback float64
	frame      string
	oldest     float64
}

// finite is v, or 0 for NaN and infinities, which no field here can hold.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// count is a gauge that counts things, as an int.
func count(v float64) int {
	v = finite(v)
	if v <= 0 {
		return 0
	}
	return int(min(v, math.MaxInt32))
}

// counter is a counter's value.
func counter(v float64) uint64 {
	v = finite(v)
	if v <= 0 {
		return 0
	}
	return uint64(min(v, 1<<53))
}
