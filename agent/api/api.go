// Package api is the wire contract between the debug agent inside a
// user's controller (package agent) and informtop attach: paths, the
// version header and the JSON bodies. It imports neither side, no UI and
// no Prometheus, so both ends share it cheaply.
//
// Every response carries the header VersionHeader, but for refusals (401
// without the token, 405), which say nothing of the agent. A 403, the
// agent's metrics token on any path but PathMetrics, carries it: that
// caller reads it on PathMetrics anyway. A client that reads a version
// it does not speak says which versions each side speaks. All endpoints
// are GET; the agent answers anything else with 405.
//
// Answers whose cost grows with the caches or the registry (all but
// PathGeneration) are computed one at a time per kind (cache reads,
// frames and reports, metrics) and shared: identical requests arriving
// while one is computed get its answer, and so do those arriving after,
// for a second for metrics, a tenth of a second for frames and reports,
// and for a cache's answer (cut, entries, object, index) as long as the
// informer has received nothing new, a second at most. So a metric or a
// frame can be that much older than the request; a cache's answer is of
// the cache as the request found it, or as an identical request in
// progress found it a moment before; when the cache keeps changing, an
// identical request is computed again at most every 0.1 s, so its answer
// may wait that long. A request that waits 2 s for its turn is answered
// 503 with Retry-After: 1.
package api

import (
	"time"

	"github.com/informtop/informtop/agent/source"
)

// Version is the protocol this build's agent speaks. It changes whenever
// a path or a body's JSON changes; the golden files in this package's
// tests, named after it, pin every body.
//
// Version 2: bodies carry source's data model (source.ModelVersion 2):
// an event says whether it is a tombstone, and a frame's reasons are only
// those the agent knows better than the figures (none, today).
//
// Version 3 (source.ModelVersion 3): an informer says whose it is
// (informtop's engine or client-go's own) and the namespace, group and
// version it watches, a listener whether its pending
// count is a lower bound and in which frame a stalled call was caught,
// and events may be Stalled or Recovered, naming that frame.
//
// Version 4 (source.ModelVersion 4): a reflector says the timeout its open
// watch asked the server for (watchTimeout), which the silent flag holds
// the watch to.
const Version = "4"

// Reads says whether a client of this build can read an agent speaking
// version v: this one, and 1, 2 and 3, whose bodies each later version
// only added to.
func Reads(v string) bool { return v == Version || v == "3" || v == "2" || v == "1" }

// VersionHeader carries the agent's protocol version on every response.
const VersionHeader = "X-Informtop-Agent-Version"

// Paths, relative to where the agent's handler is mounted. Store paths
// take the informer as the query parameter "informer".
const (
	// PathFrame answers one Frame; query: cursor (next event sequence
	// number wanted, 0 = oldest held), max (events at most, bounded by the
	// agent). Shared for 0.1 s (Frame.Taken says when it was taken).
	PathFrame = "/informtop/v1/frame"
	// PathEntries answers StoreEntries of one informer. Shared while the
	// cache is unchanged (StoreEntries.Generation), 1 s at most.
	PathEntries = "/informtop/v1/store/entries"
	// PathGeneration answers StoreGeneration of one informer, never
	// shared.
	PathGeneration = "/informtop/v1/store/generation"
	// PathObject answers a source.Object (Secrets redacted); query: key.
	// 404 when the key is not cached. Shared while the cache is
	// unchanged, 1 s at most.
	PathObject = "/informtop/v1/store/object"
	// PathIndex answers StoreIndex: the index names without "index", the
	// values of index without "value", the keys under index=value. Shared
	// while the cache is unchanged, 1 s at most.
	PathIndex = "/informtop/v1/store/index"
	// PathCut answers a Cut of one informer: the resourceVersion its cache
	// stands at and a digest of its keys and versions; query: informer,
	// keys=true for every key with its version too. Shared while the
	// informer has received nothing new, 1 s at most.
	PathCut = "/informtop/v1/store/cut"
	// PathReport answers the report informtop --once --json prints
	// (package report) with "source": "agent", for curl and scripts.
	// Shared for 0.1 s.
	PathReport = "/informtop/v1/report"
	// PathMetrics is the Prometheus exposition. Shared for 1 s among
	// scrapes with the same query, Accept and Accept-Encoding: values are
	// at most that much older than the scrape's timestamp.
	PathMetrics = "/metrics"
)

// Frame is one pull: what source.Frame holds, as JSON. Events carry Key
// and never Obj (the agent builds the key before sending).
type Frame struct {
	Version    string             `json:"version"`
	Source     string             `json:"source"` // the agent's name for its process, e.g. the binary
	Snapshots  []source.Informer  `json:"snapshots"`
	Events     []source.Event     `json:"events"`
	Next       uint64             `json:"next"`
	Missed     uint64             `json:"missed"`
	EventStats source.RingStats   `json:"eventStats"`
	Reasons    source.Reasons     `json:"reasons,omitempty"`
	Workqueues []source.Workqueue `json:"workqueues,omitempty"`
	Taken      time.Time          `json:"taken"`
}

// StoreEntries lists one informer's cache.
type StoreEntries struct {
	Generation uint64         `json:"generation"`
	Entries    []source.Entry `json:"entries"`
}

// StoreGeneration is one informer's cache generation.
type StoreGeneration struct {
	Generation uint64 `json:"generation"`
}

// StoreIndex is one level of the index browser.
type StoreIndex struct {
	Items []string `json:"items"`
}

// Error is the body of every non-2xx answer: a sentence for people.
type Error struct {
	Error string `json:"error"`
}

// MaxEvents bounds the events of one frame, whatever a client asks for.
const MaxEvents = 4096

// Cut is an informer's cache as one state (verify.Cut): what verify
// compares with the API server. Digest is the hex SHA-256 of every
// "key@resourceVersion\n", keys sorted, so two caches compare cheaply.
type Cut struct {
	ResourceVersion string `json:"resourceVersion"`
	Objects         int    `json:"objects"`
	Digest          string `json:"digest"`
	// HeldSeconds is how long the pipeline waited while the cut was copied.
	HeldSeconds float64 `json:"heldSeconds"`
	// Entries, with keys=true: every key with its resourceVersion, sorted.
	Entries []CutEntry `json:"entries,omitempty"`
}

// CutEntry is one cached object's key and resourceVersion.
type CutEntry struct {
	Key             string `json:"key"`
	ResourceVersion string `json:"resourceVersion"`
}

// FrameOf is the Frame an agent named name answers for a source's frame
// f: its snapshots, events, cursor, losses, ring totals, reasons,
// workqueues and time. Notes, status, server figures and the pause state
// are the serving side's own and stay behind. Snapshots and Events are
// never null.
func FrameOf(name string, f source.Frame) Frame {
	out := Frame{
		Version: Version, Source: name,
		Snapshots: f.Snapshots, Events: f.Events, Next: f.Next, Missed: f.Missed,
		EventStats: f.EventStats, Reasons: f.Reasons, Workqueues: f.Workqueues, Taken: f.Taken,
	}
	if out.Snapshots == nil {
		out.Snapshots = []source.Informer{}
	}
	if out.Events == nil {
		out.Events = []source.Event{}
	}
	return out
}
