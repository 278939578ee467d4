// Package pipeline is the vocabulary of an informer's pipeline that the
// engine (the root module's drop-in informer) and the data model
// (agent/source) both speak: the kinds of event and queue, and the
// figures each stage reports — reflector, queue, cache, listeners' calls,
// memory, steps.
//
// It is a leaf: it imports nothing of informtop's, so the engine, the
// agent and the model all import it and a figure is declared once. The
// model re-exports these types under its own names, Informer and Listener
// included: the engine's snapshot is the model's informer, and the agent
// fills the same type from client-go's informer. The model keeps a type
// of its own only where it must hold less than the engine: source.Event
// carries no object (see its doc).
//
// A change here changes the model's JSON: agent/source's golden test
// then asks for a new ModelVersion.
package pipeline
