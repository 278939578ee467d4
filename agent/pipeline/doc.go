// Package pipeline is the vocabulary of an informer's pipeline that the
// engine (the root module's drop-in informer) and the data model
// (agent/source) both speak: the kinds of event and queue, and the
// figures each stage reports — reflector, queue, cache, listeners' calls,
// memory, steps.
//
// It is a leaf: it imports nothing of informtop's, so the engine, the
// agent and the model all import it and a figure is declared once. The
// model re-exports these types under its own names; it keeps a type of
// its own only where its versioned JSON carries more than the engine
// knows (source.Informer, source.Listener, source.Event: see their docs).
// A change here changes the model's JSON: agent/source's golden test
// then asks for a new ModelVersion.
package pipeline
