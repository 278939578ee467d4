package local

import (
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
)

// InformerStore reads an engine informer's cache; it is what every source
// running informers in-process hands out. Objects are redacted as the
// informer's resource asks.
func InformerStore(inf *engine.Informer) source.StoreReader {
	return InformerStoreOf(inf, inf.Resource())
}

// InformerStoreOf is InformerStore for an informer that does not know its
// resource (a user's, in the agent): resource names it, "" if unknown.
func InformerStoreOf(inf *engine.Informer, resource string) source.StoreReader {
	return source.ViewStore(inf.StoreView(), resource)
}

var _ source.CacheView = engine.StoreView{}
