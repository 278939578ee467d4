package tui

import (
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine"
)

// Source is everything the dashboard reads. The UI never touches engine
// internals: it pulls snapshots and events on its tick and asks for single
// objects when the user drills in.
//
// The dashboard calls a Source, its StoreReaders and its Controls from more
// than one goroutine (the tick's pull and operator actions run off the UI
// goroutine, so a slow source never delays a keystroke); implementations
// must be safe for concurrent use.
type Source interface {
	// Kind is "demo", "kube" or "attach".
	Kind() string
	// Title names what is shown: "demo", a kubeconfig context, an address.
	Title() string
	// Notes are lines the header shows under the title, e.g. why the demo
	// is running or what the current scenario wants you to watch.
	Notes() []string
	// Snapshots returns one snapshot per informer, in a stable order.
	Snapshots() []engine.Snapshot
	// Events returns events with sequence >= from (0: oldest held), at most
	// max, the cursor for the next call, and how many were missed.
	Events(from uint64, max int) (events []engine.Event, next uint64, missed uint64)
	// Store returns read access to one informer's cache, nil if unknown.
	Store(informer string) StoreReader
	// Controls returns the teaching/debugging controls, nil when the source
	// is read-only (a real cluster, an attached process).
	Controls() Controls
}

// QueueReader is implemented by sources that can show what is queued for a key.
// The Queue view calls it only while a row's detail is open, once per
// refresh and off the UI goroutine (reading a RealFIFO for one key walks the
// whole queue), for each informer the detail shows; like the rest of a
// Source it must be safe for concurrent use. Key "" asks for the keyless
// whole-store items (ReplacedAll, SyncAll, Bookmark); nil is a fine answer.
type QueueReader interface {
	// QueueDeltas returns the deltas queued for key in the named informer, oldest first.
	QueueDeltas(informer, key string) cache.Deltas
}

// StoreReader reads one informer's cache for the Store view.
type StoreReader interface {
	// Keys returns every cached key, sorted, and the store generation they
	// were read at; callers re-read only when Generation changes.
	Keys() (keys []string, generation uint64)
	Generation() uint64
	// Get returns the cached object for key.
	Get(key string) (obj any, ok bool)
	// Labels returns the object's labels, for filtering; nil if none.
	Labels(key string) map[string]string
	// IndexNames lists the indexes, sorted.
	IndexNames() []string
	// IndexValues lists the distinct values of one index, sorted.
	IndexValues(index string) []string
	// IndexKeys lists the keys under one index value, sorted.
	IndexKeys(index, value string) []string
	// IndexEntriesOf returns, for each index, the values the object at key is filed under.
	IndexEntriesOf(key string) map[string][]string
}

// Controls are the demo and local-engine keys. Every method returns a
// sentence for the status line when it cannot do what was asked.
type Controls interface {
	// SetPaused stops or resumes popping from the queue of every informer.
	SetPaused(paused bool) error
	Paused() bool
	// Step pops exactly one item from the named informer's queue while paused.
	Step(informer string) (engine.StepResult, error)
	// ToggleStall stalls or resumes the named listener; reports the new state.
	ToggleStall(informer, listener string) (stalled bool, err error)
	// DropWatch breaks the open watch streams.
	DropWatch() error
	// ExpireHistory trims the event history so the next watch gets 410 Gone.
	ExpireHistory() error
	// Resync forces a resync of the named informer's queue.
	Resync(informer string) error
	// AdjustRate changes the workload rate by a step (+1 faster, -1 slower)
	// and returns the new rate in changes per second.
	AdjustRate(step int) (perSecond float64, err error)
}
