package pipeline

import "k8s.io/client-go/tools/cache"

// StepResult is what happened to the queue items one step popped.
type StepResult struct {
	Informer string `json:"informer"`
	// Kind is the step asked for: StepSingle or StepBatch.
	Kind StepKind `json:"kind"`
	// QueueKind and Batching say how the pop loop pops: a DeltaFIFO one
	// key at a time; a RealFIFO in batches when Batching (client-go's
	// InOrderInformersBatchProcess gate, on by default).
	QueueKind QueueKind `json:"queueKind"`
	Batching  bool      `json:"batching"`
	// Key is the first key popped; Keys every key popped, in order.
	Key    string            `json:"key"`
	Keys   []string          `json:"keys"`
	Deltas []cache.DeltaType `json:"deltas"`
	// Store lists the cache operations in order, e.g. "Add default/web-1".
	Store []string `json:"store"`
	// Notifications lists, in order, what each listener was handed.
	Notifications []StepNotification `json:"notifications"`
	// Summary counts Notifications per listener and callback, in order of
	// first appearance: "fast ← OnUpdate ×334" for a hot DeltaFIFO key.
	Summary []NotificationCount `json:"summary"`
	// Empty: the queue had nothing to pop.
	Empty bool `json:"empty"`
	// Batch is how many queue items the step popped: 1 for a single
	// step, up to 1,000 for a batch.
	Batch int `json:"batch"`
	// ResourceVersions are the popped objects' resourceVersions, parallel
	// to Deltas ("" where an object has none).
	ResourceVersions []string `json:"resourceVersions"`
	// Journey tells, a line per stage, how the popped item travelled
	// through the API server ("etcd revision 812", …); only a source that
	// runs the server (the demo) fills it.
	Journey []string `json:"journey,omitempty"`
}

// StepNotification is one notification handed to one listener.
type StepNotification struct {
	Listener string `json:"listener"`
	// Callback is OnAdd, OnUpdate, OnDelete, or "OnUpdate (sync)".
	Callback string `json:"callback"`
	Key      string `json:"key"`
	// Detail is e.g. "isInInitialList", "DeletedFinalStateUnknown".
	Detail string `json:"detail,omitempty"`
}

// StepKind is the kind of step asked for.
type StepKind string

const (
	// StepSingle pops one queue item.
	StepSingle StepKind = "single"
	// StepBatch pops what the pop loop would pop at once: up to 1,000
	// distinct keys for a batching RealFIFO, one key otherwise.
	StepBatch StepKind = "batch"
)

// NotificationCount is how many notifications of one callback a listener
// was handed during a step.
type NotificationCount struct {
	Listener string `json:"listener"`
	Callback string `json:"callback"`
	Count    int    `json:"count"`
}
