package local

import "github.com/informtop/informtop/engine"

// EngineOf is the engine informer behind i, for tests that look inside the
// pipeline (seed its store, read its raw snapshot). Code outside tests
// must use Informer's methods: the layering test fails on a call to
// EngineOf from a non-test file and on any other exported result of this
// package that carries an engine type.
func EngineOf(i *Informer) *engine.Informer { return i.engine() }
