package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/informtop/informtop/agent/source"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// Memory is an informer's estimated cache size: bytes of the
// objects' JSON encoding, estimated from a bounded sample, by field; what
// each transform saves (applied) or would save; and the process's Go heap
// in use, to check the estimate against.
type Memory struct {
	Objects int    `json:"objects"`
	Sampled uint64 `json:"sampled"` // objects sized so far; 0: no estimate yet
	// EstimatedBytes and BytesPerObject are null while nothing was sized:
	// unknown, which 0 would misstate.
	EstimatedBytes *int64           `json:"estimatedBytes"`
	BytesPerObject *int64           `json:"bytesPerObject"`
	ByField        map[string]int64 `json:"byField"`
	// SavedByTransforms: bytes each applied transform saves
	// (stripManagedFields, stripLastApplied); WouldSaveByTransforms: what
	// each that is off would save.
	SavedByTransforms     map[string]int64 `json:"savedByTransforms"`
	WouldSaveByTransforms map[string]int64 `json:"wouldSaveByTransforms"`
	GoHeapBytes           uint64           `json:"goHeapBytes"`
}

func memoryOf(m source.Memory) Memory {
	out := Memory{
		Objects: m.Objects, Sampled: m.Sampled,
		ByField: ints(m.ByField), SavedByTransforms: ints(m.SavedByTransforms), WouldSaveByTransforms: ints(m.WouldSaveByTransforms),
		GoHeapBytes: m.GoHeapBytes,
	}
	if m.Sampled > 0 {
		total, per := int64(m.EstimatedBytes), int64(m.BytesPerObject)
		out.EstimatedBytes, out.BytesPerObject = &total, &per
	}
	return out
}

func ints(m map[string]float64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = int64(v)
	}
	return out
}

// writeFreshness prints "  fresh: …", with a warning line when silent.
func writeFreshness(w io.Writer, f source.Freshness) {
	age := func(p *float64, what string) string {
		if p == nil {
			return "no " + what + " yet"
		}
		return fmt.Sprintf("%s %s ago", what, duration(*p))
	}
	watch := "no watch open"
	if f.WatchAgeSeconds != nil {
		watch = "watch open " + duration(*f.WatchAgeSeconds)
	}
	fmt.Fprintf(w, "  fresh: %s, %s, %s, %s\n", age(f.LastEventAgeSeconds, "last event"), age(f.LastBookmarkAgeSeconds, "last bookmark"),
		watch, humanize.Plural(f.WatchRestarts, "watch restart"))
	if f.Silent {
		fmt.Fprintf(w, "  SILENT: nothing from the server for %s (more than the %s a healthy watch can go without); the watch is stuck or cannot be re-established\n",
			duration(f.QuietSeconds), duration(f.SilentAfterSeconds))
	}
}

// writeMemory prints "  memory: …" once there is an estimate.
func writeMemory(w io.Writer, m Memory) {
	if m.Sampled == 0 || m.EstimatedBytes == nil || m.BytesPerObject == nil {
		fmt.Fprintf(w, "  memory: no estimate yet; Go heap %s\n", humanize.Bytes(m.GoHeapBytes))
		return
	}
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(m.ByField)) {
		if b := m.ByField[f]; b > 0 {
			parts = append(parts, safe(f)+" "+humanize.Bytes(b))
		}
	}
	fmt.Fprintf(w, "  memory: ~%s (%s per object: %s); Go heap %s (whole process)\n", humanize.Bytes(*m.EstimatedBytes),
		humanize.Bytes(*m.BytesPerObject), strings.Join(parts, ", "), humanize.Bytes(m.GoHeapBytes))
	for _, name := range slices.Sorted(maps.Keys(m.SavedByTransforms)) {
		fmt.Fprintf(w, "  %s: ~%s saved\n", safe(name), humanize.Bytes(m.SavedByTransforms[name]))
	}
	for _, name := range slices.Sorted(maps.Keys(m.WouldSaveByTransforms)) {
		if b := m.WouldSaveByTransforms[name]; b > 0 {
			fmt.Fprintf(w, "  %s is off: it would save ~%s\n", safe(name), humanize.Bytes(b))
		}
	}
}
