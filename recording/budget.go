package recording

// What reading a recording may cost. A file informtop wrote stays far
// inside these bounds; a damaged or hostile one is refused as soon as it
// would go past one, before it costs the memory or time it claims.
const (
	// MaxHeader bounds the header line: an informer takes a few hundred
	// bytes of it (name, resource, selectors, transforms, listeners), so
	// MaxInformers of them at a generous 1 KB each fit.
	MaxHeader = 1 << 20
	// MaxInformers bounds the informers of a recording. informtop runs one
	// per resource it is given, and a cluster rich in CRDs has a few
	// hundred; a replayed informer costs ~100 KB before it holds anything
	// (20,000 of them took 2.0 GB), so this many cost ~100 MB.
	MaxInformers = 1024
	// MaxListeners bounds the listeners of a recording, all informers
	// together: informtop's own and one per --listener on each informer.
	// Each is a goroutine with its buffers in a replay.
	MaxListeners = 4096
	// DefaultMaxRecord bounds one record's JSON or one of its objects,
	// decompressed, unless Limits raise it. An object is at most a few MB
	// (the API server's request limit); what takes more is a list page
	// stored as JSON (custom resources, Secrets), which a server answering
	// an unpaged list makes of a whole resource: 256 MiB is 100,000
	// objects of 2.5 KB. Reading one costs its size a few times over.
	DefaultMaxRecord = 256 << 20
	// MaxField bounds one field of a record besides its objects, as its
	// JSON takes it (a resourceVersion, a continue token, an object's key,
	// a listener's name), and an object's name, namespace, uid,
	// resourceVersion and label keys and values: informtop writes a few
	// hundred bytes at most. Without it one record within MaxRecord could
	// put it all in a resourceVersion, copied on to the report.
	MaxField = 4 << 10
	// maxOptions bounds a list or watch call's options (selectors, a
	// resourceVersion, a continue token), maxFailure a failed call's
	// error: its message and the API server's Status.
	maxOptions = 16 << 10
	maxFailure = 64 << 10
	// A recording's decompressed stream may take at most streamAllowance
	// plus maxRatio times its compressed size. Recordings compress 8 to
	// 21 times (the demo's scenarios and the replay benchmark's pods);
	// near-identical objects may reach a few hundred. A zstd bomb reaches
	// thousands: an RLE block is 4 bytes for 128 KiB. This bounds the time
	// a file can take to read; memory is bounded by the record's bound.
	maxRatio        = 1024
	streamAllowance = 64 << 20
	// maxWindow bounds the window a file's zstd frame may ask for, which
	// the decompressor allocates up front: the writer's is 4 MiB (its
	// fastest level's).
	maxWindow = 8 << 20
)

// Limits tune what a Reader accepts.
type Limits struct {
	// MaxRecord is the most one record's JSON or one of its objects may
	// take decompressed; 0 means DefaultMaxRecord.
	MaxRecord int64
}

func (l Limits) maxRecord() int64 {
	if l.MaxRecord > 0 {
		return l.MaxRecord
	}
	return DefaultMaxRecord
}

// streamBudget is how many decompressed bytes a file of size compressed
// bytes may take.
func streamBudget(size int64) int64 {
	return streamAllowance + maxRatio*size
}
