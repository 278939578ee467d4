package pipeline

// Memory estimates what an informer's cache holds, in bytes of the
// objects' JSON encoding, from a bounded sample of cached objects. Go's
// in-memory form differs, which is why the process's heap is beside it.
type Memory struct {
	Objects int `json:"objects"`
	// Sampled counts the objects sized so far; 0 means no estimate yet.
	Sampled        uint64  `json:"sampled"`
	BytesPerObject float64 `json:"bytesPerObject"`
	EstimatedBytes float64 `json:"estimatedBytes"`
	// ByField splits EstimatedBytes by field (FieldManagedFields, …).
	ByField map[string]float64 `json:"byField"`
	// SavedByTransforms is what each applied transform saves;
	// WouldSaveByTransforms what each one that is off would save, from
	// the fields it would remove.
	SavedByTransforms     map[string]float64 `json:"savedByTransforms"`
	WouldSaveByTransforms map[string]float64 `json:"wouldSaveByTransforms"`
	// GoHeapBytes is the whole process's Go heap in use by objects
	// (runtime/metrics /memory/classes/heap/objects:bytes).
	GoHeapBytes uint64 `json:"goHeapBytes"`
}

// The fields Memory.ByField splits an object into.
const (
	FieldManagedFields = "metadata.managedFields"
	// FieldLastApplied is kubectl's last-applied-configuration annotation.
	FieldLastApplied = "metadata.annotations.lastApplied"
	FieldAnnotations = "metadata.annotations" // the other annotations
	FieldMetadata    = "metadata"             // the rest of metadata
	FieldSpec        = "spec"
	FieldStatus      = "status"
	FieldData        = "data" // data and binaryData (ConfigMaps, Secrets)
	FieldOther       = "other"
)

// The transforms whose savings Memory accounts, by name.
const (
	TransformStripManagedFields = "stripManagedFields"
	TransformStripLastApplied   = "stripLastApplied"
)
