package grafana

import "strings"

// The agent's series (agent/collector.go) this dashboard reads. The test
// checks every query against the names that file declares, so a renamed
// metric fails there rather than in a blank panel.
const (
	mQueueDepth     = "informtop_informer_queued_items"
	mQueueOldestAge = "informtop_informer_oldest_queued_item_age_seconds"
	mLists          = "informtop_reflector_lists_total"
	mListPages      = "informtop_reflector_list_pages_total"
	mWatches        = "informtop_reflector_watches_total"
	mRelists        = "informtop_reflector_relists_total"
	mErrors         = "informtop_reflector_errors_total"
	mStoreObjects   = "informtop_informer_store_objects"
	mInformerSynced = "informtop_informer_synced"
	mSilent         = "informtop_informer_silent"
	mQuiet          = "informtop_informer_quiet_seconds"
	mEstimatedBytes = "informtop_informer_store_estimated_bytes"

	mPending    = "informtop_listener_pending_notifications"
	mCapacity   = "informtop_listener_buffer_capacity"
	mInCallback = "informtop_listener_callback_in_progress_seconds"
	mDelivered  = "informtop_listener_delivered_total"
	mPanics     = "informtop_listener_panics_total"
	mMutations  = "informtop_listener_cache_mutations_total"
	mLSynced    = "informtop_listener_synced"
	mOldest     = "informtop_listener_oldest_pending_seconds"

	mWQDepth    = "informtop_workqueue_depth"
	mWQAdds     = "informtop_workqueue_adds_total"
	mWQRetries  = "informtop_workqueue_retries_total"
	mWQQueueDur = "informtop_workqueue_queue_duration_seconds"
	mWQWorkDur  = "informtop_workqueue_work_duration_seconds"
	mWQUnfinish = "informtop_workqueue_unfinished_work_seconds"
	mWQLongest  = "informtop_workqueue_longest_running_processor_seconds"
)

// clientGoWorkqueue is client-go's own name of an informtop_workqueue_*
// series: a controller-runtime manager, kube-controller-manager and most
// operators export their workqueues as workqueue_* (label name, and
// controller for controller-runtime's) without the agent's provider, and
// the Workqueues row reads both.
func clientGoWorkqueue(metric string) string {
	return strings.TrimPrefix(metric, "informtop_")
}

// Thresholds shared by panels and the alert rules shipped beside them.
const (
	// stallSeconds is when a handler call counts as hung: the rule
	// InformtopListenerStalled fires on callback_in_progress > 30 s held
	// for 30 s.
	stallSeconds = 30
	// frameSeconds is when the agent looks up the code a call is stuck in
	// and sets the frame label.
	frameSeconds = 2
	// backlogWarn is the backlog past which client-go (1.36+) logs a slow
	// handler once the call returns.
	backlogWarn = 1024
)
