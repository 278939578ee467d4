// Package source is the data contract between whatever produces informer
// data (the embedded demo, a real cluster, an attached process, a replay)
// and whatever shows it (the dashboard, reports, the agent's wire). It
// owns the data model (model.go, listener.go, event.go, step.go: the
// figures it shares with the engine are package pipeline's, named here),
// imports no engine and no UI, and speaks no sentences: those are
// agent/shared/say's.
//
// A source answers one Pull per dashboard tick with a Frame: every
// informer's state (Informer), the events after the reader's cursor, the
// notes to show and the source's connection Status. One call per tick,
// because a remote source pays a round trip per call. The Store view reads
// a cache through a StoreReader, on demand and never while drawing.
//
// What a source can do beyond showing data it states in Controls: pause,
// step and resync (Processing), stall a simulated listener (Stalling),
// break a simulated server (Faults), change the churn (Workload), read a
// queue or a backlog (QueueReader, QueuePager, ListenerReader), compare a
// cache with the API server (Verifier). The dashboard offers exactly those
// keys. Decorate wraps a source to change its title, frames or controls
// without losing the rest.
//
// # Adding a source
//
// One package that fills the model and states its controls:
//
//  1. Informers running in this process are engine informers: embed
//     *local.Source (package source/local, the one adapter from the engine
//     to this model), build them with NewInformer before Run, and add to its
//     Controls what else the source can do.
//  2. Anything else (a remote process, a metrics server, a file)
//     implements Source itself: fill Informer with what it knows and leave
//     the rest zero; Pull must be cheap and safe for concurrent use, and
//     Frame.Status must say, as a Message, when the data may be stale.
//  3. Run the conformance suite (package source/sourcetest's Conform) in
//     its tests.
//
// cmd/informtop then only has to construct it.
package source
