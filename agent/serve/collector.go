package serve

import (
	"maps"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/agent/source"
)

// Labels every informtop series carries; listener series add "listener",
// informtop_listener_delivered_total adds "type".
var (
	informerLabels = []string{"name", "group", "version", "resource"}
	listenerLabels = append(append([]string(nil), informerLabels...), "listener")
	deliveredLabel = append(append([]string(nil), listenerLabels...), "type")
	frameLabels    = append(append([]string(nil), listenerLabels...), "frame")
)

func desc(name, help string, labels []string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// The series' names follow Prometheus' naming guide (base units, _total
// counters) and sit beside client-go's own where they measure the same
// thing: informtop_informer_queued_items is client-go's
// informer_queued_items (the informer's DeltaFIFO or RealFIFO, not a
// workqueue), and informtop_workqueue_* are its workqueue_*. docs/fleet.md
// lists them and the names they replaced.
var (
	descQueuedItems    = desc("informtop_informer_queued_items", "Rows in the informer's queue (its DeltaFIFO's keys or RealFIFO's events, not a workqueue); absent for client-go's own informer, which does not say.", informerLabels)
	descQueueOldestAge = desc("informtop_informer_oldest_queued_item_age_seconds", "Age of the oldest row in the informer's queue; 0 when empty; absent for client-go's own informer.", informerLabels)
	descLists          = desc("informtop_reflector_lists_total", "Full lists the reflector started, retries included.", informerLabels)
	descListPages      = desc("informtop_reflector_list_pages_total", "LIST responses the reflector received.", informerLabels)
	descWatches        = desc("informtop_reflector_watches_total", "WATCH streams the reflector opened.", informerLabels)
	descRelists        = desc("informtop_reflector_relists_total", "Lists started after a complete one.", informerLabels)
	descErrors         = desc("informtop_reflector_errors_total", "Failed LIST and WATCH calls and other reflector failures.", informerLabels)
	descStoreObjects   = desc("informtop_informer_store_objects", "Objects in the informer's cache.", informerLabels)
	descInformerSynced = desc("informtop_informer_synced", "1 when the informer has synced, else 0.", informerLabels)
	descSilent         = desc("informtop_informer_silent", "1 when the informer has heard nothing from the server (no event, bookmark, list page or new watch) for longer than it is owed anything: 15 s past the timeout its open watch asked for, 75 s with none open; else 0.", informerLabels)
	descQuiet          = desc("informtop_informer_quiet_seconds", "Seconds since the informer last heard from the server.", informerLabels)
	descEstimatedBytes = desc("informtop_informer_store_estimated_bytes", "Estimated serialized size of the objects in the informer's cache, from a bounded sample; absent for client-go's own informer.", informerLabels)

	descPending    = desc("informtop_listener_pending_notifications", "Notifications waiting in the listener's backlog, the one in progress not counted. For client-go's own informer a lower bound, counted from outside it.", listenerLabels)
	descCapacity   = desc("informtop_listener_buffer_capacity", "Current size of the listener's backlog buffer; absent for client-go's own informer.", listenerLabels)
	descInCallback = desc("informtop_listener_callback_in_progress_seconds", "How long the listener's handler has been in its current callback; 0 when idle. frame is the user's code a call running longer than 2s was found in (function (file:line)), else empty.", frameLabels)
	descDelivered  = desc("informtop_listener_delivered_total", "Handler calls that returned, by type (add, update, delete, sync).", deliveredLabel)
	descPanics     = desc("informtop_listener_panics_total", "Handler calls that panicked (recovered).", listenerLabels)
	descMutations  = desc("informtop_listener_cache_mutations_total", "Handler calls that changed the cached object they were given instead of a DeepCopy; counted only when the informer runs with Instrumentation.MutationAttribution.", listenerLabels)
	descSynced     = desc("informtop_listener_synced", "1 when the handler registration has synced, else 0.", listenerLabels)
	descOldest     = desc("informtop_listener_oldest_pending_seconds", "Age of the oldest notification the handler has not finished (the one in progress included), to within a second; 0 when none.", listenerLabels)

	workqueueLabels       = []string{"name"}
	descWorkqueueDepth    = desc("informtop_workqueue_depth", "Keys waiting in the workqueue for a worker.", workqueueLabels)
	descWorkqueueAdds     = desc("informtop_workqueue_adds_total", "Keys added to the workqueue (keys already waiting not counted).", workqueueLabels)
	descWorkqueueRetries  = desc("informtop_workqueue_retries_total", "Keys added back after a delay (AddRateLimited, AddAfter).", workqueueLabels)
	descWorkqueueQueueDur = desc("informtop_workqueue_queue_duration_seconds", "How long keys waited in the workqueue before a worker took them, with client-go's workqueue buckets.", workqueueLabels)
	descWorkqueueWorkDur  = desc("informtop_workqueue_work_duration_seconds", "How long workers took on one key, with client-go's workqueue buckets.", workqueueLabels)
	descWorkqueueUnfinish = desc("informtop_workqueue_unfinished_work_seconds", "Seconds spent so far by the work in progress that has not finished.", workqueueLabels)
	descWorkqueueLongest  = desc("informtop_workqueue_longest_running_processor_seconds", "Seconds the longest-running work item in progress has been running.", workqueueLabels)
)

// WorkqueueHistograms are one workqueue's duration histograms, as
// client-go's workqueue metrics keep them.
type WorkqueueHistograms struct {
	Name                        string
	QueueDuration, WorkDuration Histogram
}

// Histogram is one histogram's state: Buckets maps each upper bound, in
// seconds, to the observations at most that (cumulative); Count has them
// all, Sum is their total in seconds.
type Histogram struct {
	Count   uint64
	Sum     float64
	Buckets map[float64]uint64
}

// collector reads the source's model at scrape time (one pull, no
// events): the source does no work for Prometheus between scrapes.
type collector struct {
	src       source.Source
	resources map[string]schema.GroupVersionResource
	identity  func(informer string) schema.GroupVersionResource // nil: none
	queues    bool                                              // workqueue series may come
	// histograms, when set, are the workqueues' duration histograms.
	histograms func() []WorkqueueHistograms
}

func newCollector(src source.Source, resources map[string]schema.GroupVersionResource, identity func(string) schema.GroupVersionResource, queues bool) *collector {
	return &collector{src: src, resources: maps.Clone(resources), identity: identity, queues: queues}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		descQueuedItems, descQueueOldestAge, descLists, descListPages, descWatches, descRelists, descErrors,
		descStoreObjects, descInformerSynced, descSilent, descQuiet, descEstimatedBytes,
		descPending, descCapacity, descInCallback, descDelivered, descPanics, descMutations, descSynced, descOldest,
	} {
		ch <- d
	}
	if c.queues {
		for _, d := range []*prometheus.Desc{
			descWorkqueueDepth, descWorkqueueAdds, descWorkqueueRetries, descWorkqueueUnfinish, descWorkqueueLongest,
			descWorkqueueQueueDur, descWorkqueueWorkDur,
		} {
			ch <- d
		}
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	f := c.src.Pull(noEvents, 1)
	for _, inf := range f.Snapshots {
		c.collect(ch, inf)
	}
	if c.queues {
		collectWorkqueues(ch, f.Workqueues)
		if c.histograms != nil {
			collectHistograms(ch, c.histograms())
		}
	}
}

// collectHistograms exports each workqueue's duration histograms.
func collectHistograms(ch chan<- prometheus.Metric, queues []WorkqueueHistograms) {
	for _, q := range queues {
		for _, h := range []struct {
			d *prometheus.Desc
			h Histogram
		}{{descWorkqueueQueueDur, q.QueueDuration}, {descWorkqueueWorkDur, q.WorkDuration}} {
			ch <- prometheus.MustNewConstHistogram(h.d, h.h.Count, h.h.Sum, h.h.Buckets, q.Name)
		}
	}
}

func collectWorkqueues(ch chan<- prometheus.Metric, queues []source.Workqueue) {
	for _, q := range queues {
		gauge := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, q.Name)
		}
		counter := func(d *prometheus.Desc, v uint64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), q.Name)
		}
		gauge(descWorkqueueDepth, float64(q.Depth))
		counter(descWorkqueueAdds, q.Adds)
		counter(descWorkqueueRetries, q.Retries)
		gauge(descWorkqueueUnfinish, q.UnfinishedWork.Seconds())
		gauge(descWorkqueueLongest, q.LongestRunning.Seconds())
	}
}

// labels are an informer's name, group, version and resource:
// Options.Resources first, else its identity (Extras.Identity) when it
// has a resource, else an empty group
// and version and the model's Resource. Read at scrape time, as informers
// may join after the handler is built.
func (c *collector) labels(inf source.Informer) []string {
	gvr, ok := c.resources[inf.Name]
	if !ok && c.identity != nil {
		gvr = c.identity(inf.Name)
		ok = !gvr.Empty()
	}
	if ok {
		return []string{inf.Name, gvr.Group, gvr.Version, gvr.Resource}
	}
	return []string{inf.Name, "", "", inf.Resource}
}

func (c *collector) collect(ch chan<- prometheus.Metric, s source.Informer) {
	lv := c.labels(s)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	// client-go's own informer keeps its queue and its memory to itself:
	// no series rather than a zero nobody measured.
	clientGo := s.Implementation == source.ImplementationClientGo
	if !clientGo {
		gauge(descQueuedItems, float64(s.Queue.Depth), lv...)
		gauge(descQueueOldestAge, ageSeconds(s.Queue.OldestEnqueued, s.Taken), lv...)
	}
	counter(descLists, s.Reflector.Lists, lv...)
	counter(descListPages, s.Reflector.ListPages, lv...)
	counter(descWatches, s.Reflector.Watches, lv...)
	counter(descRelists, s.Reflector.Relists, lv...)
	counter(descErrors, s.Reflector.Errors, lv...)
	gauge(descStoreObjects, float64(s.Store.Objects), lv...)
	gauge(descInformerSynced, boolValue(s.Synced), lv...)
	fresh := source.FreshnessOf(s, s.Taken)
	gauge(descSilent, boolValue(fresh.Silent), lv...)
	gauge(descQuiet, fresh.QuietSeconds, lv...)
	if !clientGo {
		gauge(descEstimatedBytes, s.Memory.EstimatedBytes, lv...)
	}
	for _, l := range s.Listeners {
		ll := append(append(make([]string, 0, len(lv)+2), lv...), l.Name)
		gauge(descPending, float64(l.Pending), ll...)
		if !clientGo {
			gauge(descCapacity, float64(l.Capacity), ll...)
		}
		inCallback := 0.0
		if l.InCallback != "" {
			inCallback = ageSeconds(l.InCallbackSince, s.Taken)
		}
		frame := ""
		if l.Frame != nil && l.InCallback != "" {
			frame = l.Frame.String()
		}
		gauge(descInCallback, inCallback, append(ll, frame)...)
		for _, d := range []struct {
			typ string
			n   uint64
		}{{"add", l.Delivered.Add}, {"update", l.Delivered.Update}, {"delete", l.Delivered.Delete}, {"sync", l.Delivered.Sync}} {
			counter(descDelivered, d.n, append(ll, d.typ)...)
		}
		counter(descPanics, l.Panics, ll...)
		counter(descMutations, l.CacheMutations, ll...)
		gauge(descSynced, boolValue(l.Synced), ll...)
		gauge(descOldest, l.OldestPendingAge(s.Taken).Seconds(), ll...)
	}
}

func ageSeconds(since, now time.Time) float64 {
	if since.IsZero() || now.Before(since) {
		return 0
	}
	return now.Sub(since).Seconds()
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
