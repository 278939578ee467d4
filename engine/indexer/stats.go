package indexer

import "github.com/informtop/informtop/agent/pipeline"

// Stats is a cheap copy of the store's instrumentation.
type Stats = pipeline.Cache
