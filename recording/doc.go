// Package recording is informtop's recording file: what each informer's
// reflector received (LIST pages, watch opens and closes, every watch
// event with its object, failed calls) and how long each listener's
// callbacks took, timestamped, so that a replay can serve the same stream
// to an engine somewhere else.
//
// A file is one zstd stream. It starts with the Header as a JSON line
// (format name and version, the informtop that wrote it, every informer's
// configuration), so that any version can be told from its first line.
// Each Record follows as a frame: a uvarint length and the record's JSON,
// then, when the record's objects are in protobuf (ProtoCount of them), a
// uvarint length and the bytes of each. Objects of the Kubernetes API's
// own kinds are stored as Kubernetes protobuf, which costs a fifth of
// JSON to encode; what a view would redact (Secrets, objects whose
// whole-object annotation copies one; redacted), unstructured objects and
// ERROR events' Status as JSON inside the record. The writer flushes the
// compressor every FlushEvery, so a recording cut short (a killed
// process, a full disk) still decompresses up to its last flush; a Reader
// hands out what is complete and says where it stopped. Objects are
// stored as the source shows them: managedFields stripped, secret values
// redacted by the views' own decision (redact.Policy.Decide). Files are
// their owner's only.
//
// A Reader streams a file record by record within bounds (budget.go), so
// that a file crafted to decompress to gigabytes costs nothing, and
// checks each record as it decodes it: the frame has no checksum, so
// damage shows only where it breaks the structure (a length, a field, an
// object that no longer decodes or is not of its informer's kind), and
// such a record is refused with its place in the decompressed stream.
//
// Tee wraps a ListerWatcher so that everything it returns is also handed
// to a Writer, without ever blocking the reflector beyond the Writer's
// bounded buffer: when the disk falls behind, records are dropped, counted
// and marked in the file with a gap record. When the ListerWatcher's
// client keeps the bytes it decoded (internal/wirekeep, as the kube
// source's typed clients do), watch events are stored from those bytes,
// so that recording costs the informer's stream next to nothing.
package recording
