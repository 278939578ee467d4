package source

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/verify"
)

// The capabilities below are optional: a source lists those it has in
// Controls, and the dashboard offers a key only when its capability is
// there. Every method returns an error that is a sentence for the status
// line when it cannot do what was asked.

// Processing pauses, steps and resyncs informers running in this process.
type Processing interface {
	// SetPaused stops or resumes popping from every informer's queue on
	// the user's behalf: frames then report PausedByYou.
	SetPaused(paused bool) error
	// Paused reports whether processing is paused.
	Paused() bool
	// Step pops exactly one item from the named informer's queue while
	// paused, and narrates what happened to it.
	Step(informer string) (StepResult, error)
	// StepBatch pops while paused as client-go v0.37's batched RealFIFO
	// pop does: up to 1,000 distinct keys, stopping at a bookmark. On a
	// DeltaFIFO it pops one key, like Step.
	StepBatch(informer string) (StepResult, error)
	// Resync forces a resync of the named informer's queue.
	Resync(informer string) error
}

// Stalling blocks a simulated listener inside its callback, or lets it go on.
type Stalling interface {
	// ToggleStall stalls or resumes the named listener; reports the new state.
	ToggleStall(informer, listener string) (stalled bool, err error)
}

// Faults breaks a simulated API server on purpose.
type Faults interface {
	// DropWatch breaks the open watch streams.
	DropWatch() error
	// ExpireHistory trims the event history so the next watch gets 410 Gone.
	ExpireHistory() error
}

// Workload changes how fast a simulated cluster changes.
type Workload interface {
	// AdjustRate moves the workload rate a step (+1 faster, -1 slower)
	// and returns the new rate in changes per second.
	AdjustRate(step int) (perSecond float64, err error)
}

// QueueReader shows what is queued for one key. The Queue view calls it
// only while a row's detail is open, once per refresh and off the UI
// goroutine (a RealFIFO walks its whole queue to answer). Key "" asks for
// the keyless whole-store items (ReplacedAll, SyncAll, Bookmark); nil is a
// fine answer.
type QueueReader interface {
	// QueueDeltas returns the deltas queued for key in the named informer, oldest first.
	QueueDeltas(informer, key string) cache.Deltas
}

// Verifier compares an informer's cache with the API server, key by key at
// the resourceVersion the cache stands at. It only lists.
type Verifier interface {
	Verify(ctx context.Context, informer string) (verify.Result, error)
}

// QueuePager reads a whole queue a page at a time, so the Queue view can
// go past the snapshot's head rows. Called off the UI goroutine.
type QueuePager interface {
	// QueueRows returns at most max rows of the named informer's queue from
	// offset on, in pop order, and how many rows are queued in all. Rows
	// include Bookmark, ReplacedAll and SyncAll items with their type.
	QueueRows(informer string, offset, max int) (rows []QueueItem, total int)
}

// ListenerReader shows what a listener still owes. Called off the UI
// goroutine, like QueueReader.
type ListenerReader interface {
	// ListenerBacklog returns at most max of the notifications waiting in
	// the named listener's backlog, oldest first.
	ListenerBacklog(informer, listener string, max int) []Pending
}

// Cutter copies an informer's cache as one state, for verify: every key
// with its object's resourceVersion, at the resourceVersion the cache
// stands at. Only sources whose cache can be cut have one (informers in
// this process, an agent's). An informer the source does not have is
// refused with an error that is ErrUnknownInformer; one that has not
// received its first list yet with one that is ErrNothingReceived.
type Cutter interface {
	Cut(ctx context.Context, informer string) (verify.Cut, error)
}

// ErrNothingReceived: the informer has not received its first list yet,
// so its cache stands at no resourceVersion and cannot be cut.
var ErrNothingReceived = errors.New("the informer has not received its first list yet")

// ErrUnknownInformer: the source has no informer of the name asked for.
// Controls say so in a sentence naming it (NoInformer); errors.Is tells
// it from their other failures.
var ErrUnknownInformer = errors.New("no such informer")

// NoInformer is the refusal of a control asked about an informer the
// source does not have: "no informer named "x"", which is
// ErrUnknownInformer.
func NoInformer(name string) error { return noInformer(name) }

type noInformer string

func (e noInformer) Error() string      { return fmt.Sprintf("no informer named %q", string(e)) }
func (noInformer) Is(target error) bool { return target == ErrUnknownInformer }
