package engine

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informtop/informtop/agent/pipeline"
)

const (
	// memorySampleSize objects are sized every memorySampleEvery: the cost
	// is bounded whatever the store holds.
	memorySampleSize  = 32
	memorySampleEvery = 5 * time.Second
	// memoryRoundBytes ends a round early once this much JSON was encoded,
	// so large objects (a controller's 1 MB custom resources) cost no more.
	memoryRoundBytes = 1 << 20
	// memoryWeight is how much a new round counts against the average of
	// the previous ones: the estimate settles within a few rounds and
	// follows objects that grow.
	memoryWeight = 0.25
	// meterEvery: a transform meter measures one object in this many.
	meterEvery = 64
)

// transformFields is the field each accounted transform removes.
var transformFields = map[string]string{
	pipeline.TransformStripManagedFields: pipeline.FieldManagedFields,
	pipeline.TransformStripLastApplied:   pipeline.FieldLastApplied,
}

// TransformMeter measures, on one object in 64, how many bytes a
// transform removes. A transform calls Sample and, when it says so,
// Removed with what it took away (0 when there was nothing).
//
// Objects are chosen by resourceVersion, not by call: client-go runs the
// transform twice over a streamed list's items (in the reflector's
// temporary store, then in the queue's Replace), and the second pass finds
// nothing left to remove. Choosing by resourceVersion picks the same
// object in both passes, and the meter measures it only the first time.
type TransformMeter struct {
	measured, bytes atomic.Uint64

	mu   sync.Mutex
	seen map[string]struct{} // resourceVersions measured lately
}

// maxSeen bounds the meter's memory of measured resourceVersions; past it
// the memory starts over, at worst measuring one object twice.
const maxSeen = 4096

// Sample reports whether the object at resourceVersion rv should be
// measured. It costs a hash of rv: nothing allocates unless it is chosen.
func (m *TransformMeter) Sample(rv string) bool {
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(rv); i++ {
		h = (h ^ uint32(rv[i])) * 16777619
	}
	if h%meterEvery != 0 {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.seen[rv]; ok {
		return false
	}
	if m.seen == nil || len(m.seen) >= maxSeen {
		m.seen = map[string]struct{}{}
	}
	m.seen[rv] = struct{}{}
	return true
}

// Removed records the bytes a measured object lost.
func (m *TransformMeter) Removed(bytes int) {
	m.measured.Add(1)
	m.bytes.Add(uint64(bytes))
}

// perObject is the mean removed per measured call.
func (m *TransformMeter) perObject() float64 {
	n := m.measured.Load()
	if n == 0 {
		return 0
	}
	return float64(m.bytes.Load()) / float64(n)
}

// memory is an informer's memory accounting.
type memory struct {
	mu        sync.Mutex
	perObject fieldSizes // running average per object
	sampled   uint64
	lastRound time.Time
	// emptyRound: the last round found the store empty (the upkeep's first
	// round often runs before the first list lands), so it does not count
	// as the first estimate.
	emptyRound bool
	meters     map[string]*TransformMeter // set before Run
}

// MeterTransform returns the meter for the named transform (one of
// TransformStripManagedFields, TransformStripLastApplied); call it before
// Run and use the meter inside the transform.
func (inf *Informer) MeterTransform(name string) *TransformMeter {
	inf.memory.mu.Lock()
	defer inf.memory.mu.Unlock()
	if inf.memory.meters == nil {
		inf.memory.meters = map[string]*TransformMeter{}
	}
	m := inf.memory.meters[name]
	if m == nil {
		m = &TransformMeter{}
		inf.memory.meters[name] = m
	}
	return m
}

// sampleMemory sizes a few cached objects when a round is due.
func (inf *Informer) sampleMemory(now time.Time) {
	mem := &inf.memory
	mem.mu.Lock()
	due := mem.lastRound.IsZero() || now.Sub(mem.lastRound) >= memorySampleEvery
	if due {
		mem.lastRound = now
	}
	mem.mu.Unlock()
	if due {
		inf.memoryRound()
	}
}

// memoryRound sizes one sample of the store, outside any lock but the
// store's brief read lock, and folds it into the average.
func (inf *Informer) memoryRound() {
	round, n, encoded := fieldSizes{}, 0, 0.0
	sample := inf.indexer.Sample(memorySampleSize)
	inf.memory.mu.Lock()
	inf.memory.emptyRound = len(sample) == 0
	inf.memory.mu.Unlock()
	for _, obj := range sample {
		if encoded >= memoryRoundBytes {
			break
		}
		sizes, ok := sizeOf(obj)
		if !ok {
			continue
		}
		for f, b := range sizes {
			round[f] += b
			encoded += b
		}
		n++
	}
	if n == 0 {
		return
	}
	mem := &inf.memory
	mem.mu.Lock()
	defer mem.mu.Unlock()
	w := memoryWeight
	if mem.perObject == nil {
		mem.perObject, w = fieldSizes{}, 1
	}
	for f := range mem.perObject {
		mem.perObject[f] *= 1 - w
	}
	for f, b := range round {
		mem.perObject[f] += w * b / float64(n)
	}
	mem.sampled += uint64(n)
}

// neverSampled reports whether no sampling round has been started yet,
// or the only ones found the store empty.
func (mem *memory) neverSampled() bool {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	return mem.lastRound.IsZero() || (mem.sampled == 0 && mem.emptyRound)
}

// stats projects the average onto objects cached objects.
func (mem *memory) stats(objects int) MemoryStats {
	s := MemoryStats{Objects: objects, ByField: map[string]float64{}, SavedByTransforms: map[string]float64{},
		WouldSaveByTransforms: map[string]float64{}, GoHeapBytes: goHeapBytes()}
	mem.mu.Lock()
	defer mem.mu.Unlock()
	s.Sampled = mem.sampled
	for f, b := range mem.perObject {
		s.BytesPerObject += b
		s.ByField[f] = b * float64(objects)
	}
	s.EstimatedBytes = s.BytesPerObject * float64(objects)
	for name, field := range transformFields {
		if m, ok := mem.meters[name]; ok {
			s.SavedByTransforms[name] = m.perObject() * float64(objects)
		} else {
			s.WouldSaveByTransforms[name] = s.ByField[field]
		}
	}
	return s
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
var heapMu sync.Mutex

// goHeapBytes reads the process's heap in use by objects.
func goHeapBytes() uint64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return heapSample[0].Value.Uint64()
}

// MemoryStats estimates what an informer's cache holds (pipeline.Memory).
type MemoryStats = pipeline.Memory
