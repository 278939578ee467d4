package grafana

// The agent's series (agent/collector.go) this dashboard reads. The test
// checks every query against the names that file declares, so a renamed
// metric fails there rather than in a blank panel.
const (
	mQueueDepth     = "informtop_queue_depth"
	mQueueOldestAge = "informtop_queue_oldest_item_age_seconds"
	mLists          = "informtop_reflector_lists_total"
	mListPages      = "informtop_reflector_list_pages_total"
	mWatches        = "informtop_reflector_watches_total"
	mRelists        = "informtop_reflector_relists_total"
	mErrors         = "informtop_reflector_errors_total"
	mStoreObjects   = "informtop_store_objects"
	mInformerSynced = "informtop_informer_synced"
	mSilent         = "informtop_informer_silent"
	mQuiet          = "informtop_informer_quiet_seconds"
	mEstimatedBytes = "informtop_store_estimated_bytes"

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
	mWQLatency  = "informtop_workqueue_queue_latency_seconds_max"
	mWQWork     = "informtop_workqueue_work_duration_seconds_max"
	mWQUnfinish = "informtop_workqueue_unfinished_work_seconds"
	mWQLongest  = "informtop_workqueue_longest_running_processor_seconds"
)

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
