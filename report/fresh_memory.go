package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/internal/humanize"
)

// Memory is an informer's estimated cache size (SPEC §8): bytes of the
// objects' JSON encoding, estimated from a bounded sample, by field; what
// each transform saves (applied) or would save; and the process's Go heap
// in use, to check the estimate against.
type Memory struct {
	Objects           int                        `json:"objects"`
	Sampled           uint64                     `json:"sampled"` // objects sized so far; 0: no estimate yet
	EstimatedBytes    int64                      `json:"estimatedBytes"`
	BytesPerObject    int64                      `json:"bytesPerObject"`
	ByField           map[string]int64           `json:"byField"`
	SavedByTransforms map[string]TransformSaving `json:"savedByTransforms"`
	GoHeapBytes       uint64                     `json:"goHeapBytes"`
}

// TransformSaving is what one transform, named by the field it removes,
// saves; Applied false: the transform is off and this is what it would save.
type TransformSaving struct {
	Bytes   int64 `json:"bytes"`
	Applied bool  `json:"applied"`
}

func memoryOf(m engine.MemoryStats) Memory {
	out := Memory{
		Objects: m.Objects, Sampled: m.Sampled, EstimatedBytes: int64(m.EstimatedBytes), BytesPerObject: int64(m.BytesPerObject),
		ByField: map[string]int64{}, SavedByTransforms: map[string]TransformSaving{}, GoHeapBytes: m.GoHeapBytes,
	}
	for f, b := range m.ByField {
		out.ByField[f] = int64(b)
	}
	for f, s := range m.SavedByTransforms {
		out.SavedByTransforms[f] = TransformSaving{Bytes: int64(s.Bytes), Applied: s.Applied}
	}
	return out
}

// writeFreshness prints "  fresh: …", with a warning line when silent.
func writeFreshness(w io.Writer, f engine.Freshness) {
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
		fmt.Fprintf(w, "  SILENT: nothing from the server for %s (a healthy watch hears at least a bookmark every minute); the watch is stuck or cannot be re-established\n",
			duration(f.QuietSeconds))
	}
}

// writeMemory prints "  memory: …" once there is an estimate.
func writeMemory(w io.Writer, m Memory) {
	if m.Sampled == 0 {
		fmt.Fprintf(w, "  memory: no estimate yet; Go heap %s\n", humanize.Bytes(m.GoHeapBytes))
		return
	}
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(m.ByField)) {
		if b := m.ByField[f]; b > 0 {
			parts = append(parts, f+" "+humanize.Bytes(b))
		}
	}
	fmt.Fprintf(w, "  memory: ~%s (%s per object: %s); Go heap %s (whole process)\n", humanize.Bytes(m.EstimatedBytes),
		humanize.Bytes(m.BytesPerObject), strings.Join(parts, ", "), humanize.Bytes(m.GoHeapBytes))
	for _, f := range slices.Sorted(maps.Keys(m.SavedByTransforms)) {
		s := m.SavedByTransforms[f]
		switch {
		case s.Applied:
			fmt.Fprintf(w, "  %s stripped: ~%s saved\n", f, humanize.Bytes(s.Bytes))
		case s.Bytes > 0:
			fmt.Fprintf(w, "  %s kept: stripping would save ~%s\n", f, humanize.Bytes(s.Bytes))
		}
	}
}
