package local

import (
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
	"github.com/informtop/informtop/engine"
)

// This file is the one place engine state becomes source's data model.
// The engine reports the model's own types (package pipeline), so what is
// left here is what only the adapter knows.

// InformerOf is the model of one engine snapshot: the snapshot itself,
// which is the model's type, with the one field only the adapter knows.
func InformerOf(s engine.Snapshot) source.Informer {
	s.Implementation = source.ImplementationEngine
	return s
}

// InformersOf is InformerOf over a list, in its order.
func InformersOf(snaps []engine.Snapshot) []source.Informer {
	out := make([]source.Informer, len(snaps))
	for i, s := range snaps {
		out[i] = InformerOf(s)
	}
	return out
}

// CutOf is the model of an engine cache cut.
func CutOf(c engine.CacheCut) verify.Cut {
	return verify.Cut{ResourceVersion: c.ResourceVersion, Objects: c.Objects, Held: c.Held}
}
