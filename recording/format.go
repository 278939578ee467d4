package recording

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// FormatName is the first field of every recording's header.
const FormatName = "informtop-recording"

// Version is the format version this build writes; Reads lists the ones
// it reads.
const Version = 2

// Reads are the format versions this build can replay.
var Reads = []int{2}

// Header is a recording's first line: enough to rebuild its informers.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Informtop is the version of the informtop that wrote the file.
	Informtop string `json:"informtop"`
	// Started is when recording began; every record's T counts from it.
	Started time.Time `json:"started"`
	// Source says what was recorded: "demo · steady (seed 1)", a context.
	Source    string     `json:"source"`
	Informers []Informer `json:"informers"`
}

// Informer is one recorded informer's configuration.
type Informer struct {
	Name     string `json:"name"`
	Resource string `json:"resource"`
	// Queue is "RealFIFO" or "DeltaFIFO".
	Queue     string `json:"queue"`
	Namespace string `json:"namespace,omitempty"` // "" for every namespace
	Labels    string `json:"labelSelector,omitempty"`
	Fields    string `json:"fieldSelector,omitempty"`
	// Transforms name what was done to objects before they were cached,
	// e.g. "strip-managed-fields", "metadata-only".
	Transforms []string `json:"transforms,omitempty"`
	// WatchList says the recorded ListerWatcher allowed streamed initial
	// lists, so a replay must answer the reflector the same way.
	WatchList bool       `json:"watchList,omitempty"`
	Listeners []Listener `json:"listeners,omitempty"`
}

// Listener is one recorded event handler.
type Listener struct {
	Name string `json:"name"`
	// Delay is its configured time per callback, when simulated.
	Delay time.Duration `json:"delay,omitempty"`
}

// Kind says what a Record is.
type Kind string

const (
	// KindList is one List call: its options and its page, or its error.
	KindList Kind = "list"
	// KindWatch is one Watch call: its options, and its error when it failed.
	KindWatch Kind = "watch"
	// KindEvent is one event of the open watch stream.
	KindEvent Kind = "event"
	// KindClose ends the open watch stream; By says which side ended it.
	KindClose Kind = "close"
	// KindCall is one listener callback and how long it took.
	KindCall Kind = "call"
	// KindGap says records were dropped here because the disk fell behind.
	KindGap Kind = "gap"
)

// Record is one line after the header. Fields are short: a recording
// holds millions of them.
type Record struct {
	// T is when it happened, in nanoseconds since Header.Started.
	T        int64  `json:"t"`
	Kind     Kind   `json:"k"`
	Informer string `json:"i,omitempty"`

	// List and watch requests.
	Options *metav1.ListOptions `json:"opts,omitempty"`
	// Err is a failed call (list, watch), nil when it succeeded.
	Err *Failure `json:"err,omitempty"`
	// Page: the list's resourceVersion, continue token and items.
	RV       string            `json:"rv,omitempty"`
	Continue string            `json:"continue,omitempty"`
	Items    []json.RawMessage `json:"items,omitempty"`

	// Event: its type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR) and object.
	Type   string          `json:"type,omitempty"`
	Object json.RawMessage `json:"obj,omitempty"`

	// ProtoKind is set when the record's object (an event's) or items (a
	// page's) are in Proto rather than in Object or Items: Kubernetes
	// protobuf of this apiVersion and kind ("v1/Pod", "apps/v1/Deployment"),
	// as the type's generated Marshal writes it. See Objects.
	ProtoKind string `json:"pbk,omitempty"`
	// ProtoCount is len(Proto), so a reader knows how many follow.
	ProtoCount int      `json:"pb,omitempty"`
	Proto      [][]byte `json:"-"`

	// Close: "server" (the stream ended) or "client" (the reflector stopped it).
	By string `json:"by,omitempty"`

	// Call: the listener, the callback (OnAdd, OnUpdate, OnUpdate(sync),
	// OnDelete), the object's key and resourceVersion, and the duration.
	Listener string `json:"l,omitempty"`
	Callback string `json:"cb,omitempty"`
	Key      string `json:"key,omitempty"`
	Duration int64  `json:"d,omitempty"`

	// Gap: how many records were dropped just before this one.
	Dropped uint64 `json:"dropped,omitempty"`

	// Offset is where a Reader found the record in the decompressed
	// stream, Size how many bytes of it the record took.
	Offset int64 `json:"-"`
	Size   int64 `json:"-"`
	// objs are the record's objects as a Reader decoded them.
	objs []runtime.Object
}

// Decoded is the record's objects (an event's, a page's items) as the
// Reader that read it decoded them: the API's Go types when the
// informer's stream is typed (see Reader.Kind), else unstructured; an
// ERROR event's *metav1.Status. Nil for a record no Reader handed out
// (Read's records keep their bytes instead). They are the caller's:
// nothing else holds them.
func (r Record) Decoded() []runtime.Object { return r.objs }

// At is the record's time as a duration since the recording began.
func (r Record) At() time.Duration { return time.Duration(r.T) }

// Failure is a failed List or Watch call as the reflector saw it.
type Failure struct {
	Message string `json:"message"`
	// Status is the API server's status, when the error carried one (a
	// 410 Gone, a 403); nil for a connection failure.
	Status *metav1.Status `json:"status,omitempty"`
	// Refused: the connection was refused (the API server down). The
	// reflector retries a refused watch where it left off, but relists
	// after any other failure, so a replay must fail the same way.
	Refused bool `json:"refused,omitempty"`
}
