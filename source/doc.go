// Package source is the data contract between whatever produces informer
// data (the embedded demo, a real cluster, an attached process, a replay)
// and whatever shows it (the dashboard, --once reports). It imports no UI.
//
// A source answers one Pull per dashboard tick with a Frame: every
// informer's Snapshot, the events after the reader's cursor, the notes to
// show and the source's connection Status. One call per tick, because a
// remote source pays a round trip per call. The Store view reads a cache
// through a StoreReader, on demand and never while drawing.
//
// Keys beyond viewing are capabilities, found by type assertion on the
// Source, so a view offers only what the source can do: Processing
// (pause, step, batch step, resync), Stalling (stall a simulated
// listener), Faults (server faults), Workload (change the churn rate),
// QueueReader (what is queued for one key), QueuePager (the whole queue, a
// page at a time) and ListenerReader (what a listener still owes).
//
// # Plugging in a new source
//
//  1. Build engine informers (engine.NewSharedIndexInformerWithOptions)
//     with a shared instr.Ring, or talk to something that serves them.
//  2. For informers running in this process, embed *local.Source (package
//     source/local): it implements Pull, Store, Run, WaitSynced and every
//     local capability; add informers with AddInformer before Run.
//  3. Otherwise implement Source yourself: Pull must be cheap and safe
//     for concurrent use, and fill Frame.Status with a sentence whenever
//     the data may be stale ("disconnected, retrying in 4s").
//  4. Implement only the capability interfaces you can honour; the
//     dashboard hides the others and says why when their key is pressed.
//  5. Wire it in cmd/informtop: the only package that imports both a
//     source and the UI.
package source
