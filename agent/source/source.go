package source

import (
	"context"
	"errors"
	"time"
)

// Source is everything the dashboard and the reports read.
//
// Implementations must be safe for concurrent use: the dashboard calls
// Pull, Store readers and capabilities from command goroutines so that a
// slow source never delays a keystroke.
type Source interface {
	// Kind is "demo", "kube", "attach", "replay" or "fleet".
	Kind() string
	// Title names what is shown: "demo · steady", a kubeconfig context,
	// an address.
	Title() string
	// Pull returns one frame: the snapshots, the events with sequence >=
	// cursor (0: the oldest held), at most maxEvents of them, and the rest
	// of what one tick shows.
	Pull(cursor uint64, maxEvents int) Frame
	// Store returns read access to one informer's cache; nil when the
	// informer is unknown or the source does not serve its cache. It must
	// not block (the dashboard calls it while handling a message); the
	// reader's own methods may make requests.
	Store(informer string) StoreReader
	// Run drives the source until ctx is done and returns once everything
	// it started has stopped. A source runs once.
	Run(ctx context.Context)
	// WaitSynced returns nil once every informer and handler registration
	// has synced, or an error saying what had not when ctx ends.
	WaitSynced(ctx context.Context) error
	// Controls says what the source can do beyond showing data. It must
	// not block and returns the same controls every time.
	Controls() Controls
}

// Frame is one tick's worth of a source.
type Frame struct {
	// Snapshots has one entry per informer, in a stable display order.
	Snapshots []Informer
	// Notes are lines shown under the title: why this source runs, what a
	// scenario wants you to watch. The first is the headline.
	Notes []string
	// Events are the events from the cursor on, oldest first; Next is the
	// cursor for the next Pull; Missed counts events this reader lost
	// because the ring overwrote them before it asked.
	Events []Event
	Next   uint64
	Missed uint64
	// EventStats are the source's event-ring totals (one ring per source).
	EventStats RingStats
	// Status is the source's own state: connected or not, and why.
	Status Status
	// Reasons says, for each informer that has not synced, why not.
	Reasons Reasons
	// Workqueues are the controller's workqueues, when the source sees them.
	Workqueues []Workqueue
	// Server is, per informer name, what the API server says about the
	// resource it watches, when the source reads it.
	Server map[string]ServerStats
	// Paused reports that processing is paused (sources with Processing).
	Paused bool
	// PausedBy says who paused processing; "" when not paused.
	PausedBy Pauser
	// Processes are the controller processes a fleet source reads, worst
	// first (RankProcesses); nil for every other source.
	Processes []Process
	// Taken is when the frame was read.
	Taken time.Time
}

// Pauser is who paused processing, as the header says it: "you paused",
// "the scenario paused".
type Pauser string

const (
	// PausedByYou: the dashboard's user paused (Processing.SetPaused).
	PausedByYou Pauser = "you"
	// PausedByScenario: a demo scenario's script paused.
	PausedByScenario Pauser = "the scenario"
)

// State is a source's connection state.
type State string

const (
	// Live: data is current.
	Live State = "live"
	// Connecting: nothing received yet.
	Connecting State = "connecting"
	// Disconnected: the data shown is the last received; a retry is planned.
	Disconnected State = "disconnected"
	// Incompatible: the other side speaks a version this build cannot read.
	Incompatible State = "incompatible"
)

// Status says whether the data is current and, when it is not, why, in a
// sentence the header can show as it is.
type Status struct {
	State State `json:"state"`
	// Message is a sentence for people, "" when live and nothing to add.
	Message string `json:"message,omitempty"`
	// LastError is the newest error, "" if none.
	LastError string `json:"lastError,omitempty"`
	// NextRetry is when the next attempt happens; zero when not known.
	NextRetry time.Time `json:"nextRetry,omitzero"`
}

// Reasons maps an informer's name to the sentence saying why it has not
// synced, where the source knows better than the informer's figures (an
// RBAC check); the others are worded by whoever shows them.
type Reasons map[string]string

// ErrUnreachable is wrapped by WaitSynced's error when waiting cannot
// help: nothing answers where the source reads, or what answers refuses
// it or is not what it reads. The error's text says which and what to do;
// a command reports it at once (exit 2) instead of after its timeout.
var ErrUnreachable = errors.New("the source cannot reach what it reads")
