package engine

import "k8s.io/client-go/tools/cache"

// StepResult narrates what happened to the one queue item popped by Step.
type StepResult struct {
	Informer string            `json:"informer"`
	Key      string            `json:"key"`
	Deltas   []cache.DeltaType `json:"deltas"`
	// Store lists the indexer operations in order, e.g. "Add default/web-1".
	Store []string `json:"store"`
	// Notifications lists, in order, what each listener was handed,
	// e.g. {Listener: "fast", Callback: "OnUpdate", Key: "default/web-1"}.
	Notifications []StepNotification `json:"notifications"`
	// Empty is true when the queue had nothing to pop.
	Empty bool `json:"empty"`
}

// StepNotification is one notification handed to one listener during a step.
type StepNotification struct {
	Listener string `json:"listener"`
	Callback string `json:"callback"` // OnAdd, OnUpdate, OnDelete; "OnUpdate (sync)" for resyncs
	Key      string `json:"key"`
	Detail   string `json:"detail,omitempty"` // e.g. "isInInitialList", "DeletedFinalStateUnknown"
}
