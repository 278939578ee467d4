package source

import (
	"github.com/informtop/informtop/agent/pipeline"
)

// ModelVersion names the shape of the data model below as JSON: the agent's
// wire and anything that stores frames carry it. It changes whenever a
// field is renamed, removed or changes meaning; golden files in this
// package's tests pin the JSON of every type, so a change that forgets to
// bump it fails.
const ModelVersion = "4"

// The informer implementations a source may serve.
const (
	// ImplementationEngine is informtop's instrumented pipeline.
	ImplementationEngine = "informtop"
	// ImplementationClientGo is client-go's own shared informer, observed
	// from outside (its list-watch, handlers and queue metric).
	ImplementationClientGo = "client-go"
	// ImplementationPprof is client-go's shared informer seen only through
	// its process's goroutine dumps and metrics (attach --pprof): its
	// listeners and what their calls are in, but no keys, backlogs,
	// queues or caches; its durations are lower bounds.
	ImplementationPprof = "client-go (pprof)"
)

// CloneInformers clones every informer of infs.
func CloneInformers(infs []Informer) []Informer {
	if infs == nil {
		return nil
	}
	out := make([]Informer, len(infs))
	for i, inf := range infs {
		out[i] = inf.Clone()
	}
	return out
}

// The pipeline's figures as the model carries them: the engine reports the
// same types, so its adapter copies them whole (package pipeline).
type (
	// QueueKind names a queue implementation ("RealFIFO", "DeltaFIFO").
	QueueKind = pipeline.QueueKind
	// Queue is the state of an informer's queue.
	Queue = pipeline.Queue
	// QueueItem is one row of a queue.
	QueueItem = pipeline.QueueItem
	// DeltaCounts counts deltas by type.
	DeltaCounts = pipeline.DeltaCounts
	// Cache is the state of an informer's cache (its indexer).
	Cache = pipeline.Cache
	// Reflector is what was seen of an informer's LIST and WATCH calls.
	Reflector = pipeline.Reflector
	// Memory estimates what an informer's cache holds.
	Memory = pipeline.Memory
)

// The queue kinds.
const (
	RealFIFO  = pipeline.RealFIFO
	DeltaFIFO = pipeline.DeltaFIFO
)

// The fields Memory.ByField splits an object into.
const (
	FieldManagedFields = pipeline.FieldManagedFields
	FieldLastApplied   = pipeline.FieldLastApplied
	FieldAnnotations   = pipeline.FieldAnnotations
	FieldMetadata      = pipeline.FieldMetadata
	FieldSpec          = pipeline.FieldSpec
	FieldStatus        = pipeline.FieldStatus
	FieldData          = pipeline.FieldData
	FieldOther         = pipeline.FieldOther
)

// The transforms whose savings Memory accounts.
const (
	TransformStripManagedFields = pipeline.TransformStripManagedFields
	TransformStripLastApplied   = pipeline.TransformStripLastApplied
)

// Informer is one informer at one moment (pipeline.Informer): what a
// source knows of its queue, cache, reflector, listeners and memory. The
// engine reports this very type, the agent fills it from client-go's
// informer, so a figure is named once.
type Informer = pipeline.Informer
