package tui

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informtop/informtop/engine"
)

// fakeSource replays fixed frames of snapshots. It is safe for concurrent
// use because the model calls it from command goroutines.
type fakeSource struct {
	mu     sync.Mutex
	kind   string
	title  string
	notes  []string
	frames [][]engine.Snapshot
	frame  int
	events []engine.Event
	stores map[string]*fakeStore
	ctl    *fakeControls // nil: a read-only source
}

func (s *fakeSource) Kind() string    { return s.kind }
func (s *fakeSource) Title() string   { return s.title }
func (s *fakeSource) Notes() []string { return s.notes }

func (s *fakeSource) Snapshots() []engine.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.frames) == 0 {
		return nil
	}
	return append([]engine.Snapshot(nil), s.frames[s.frame]...)
}

// advance moves to the next frame, staying on the last one.
func (s *fakeSource) advance() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frame < len(s.frames)-1 {
		s.frame++
	}
}

func (s *fakeSource) Events(from uint64, max int) ([]engine.Event, uint64, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if from == 0 {
		from = 1
	}
	var out []engine.Event
	next := from
	for _, e := range s.events {
		if e.Seq >= from && (max <= 0 || len(out) < max) {
			out = append(out, e)
			next = e.Seq + 1
		}
	}
	return out, next, 0
}

func (s *fakeSource) Store(informer string) StoreReader {
	if st, ok := s.stores[informer]; ok {
		return st
	}
	return nil
}

func (s *fakeSource) Controls() Controls {
	if s.ctl == nil {
		return nil
	}
	return s.ctl
}

// fakeStore is an immutable cache with indexes.
type fakeStore struct {
	keys    []string
	objs    map[string]runtime.Object
	labels  map[string]map[string]string
	indexes map[string]map[string][]string // index -> value -> keys
	gen     uint64
}

func newFakeStore(gen uint64) *fakeStore {
	return &fakeStore{objs: map[string]runtime.Object{}, labels: map[string]map[string]string{},
		indexes: map[string]map[string][]string{}, gen: gen}
}

func (f *fakeStore) add(key string, obj runtime.Object, labels map[string]string, idx map[string]string) {
	f.keys = append(f.keys, key)
	f.objs[key] = obj
	if labels != nil {
		f.labels[key] = labels
	}
	for name, val := range idx {
		if f.indexes[name] == nil {
			f.indexes[name] = map[string][]string{}
		}
		f.indexes[name][val] = append(f.indexes[name][val], key)
	}
}

// seal sorts the keys as the contract promises.
func (f *fakeStore) seal() *fakeStore {
	sort.Strings(f.keys)
	for _, vals := range f.indexes {
		for _, keys := range vals {
			sort.Strings(keys)
		}
	}
	return f
}

func (f *fakeStore) Keys() ([]string, uint64) { return append([]string(nil), f.keys...), f.gen }
func (f *fakeStore) Generation() uint64       { return f.gen }

func (f *fakeStore) Get(key string) (any, bool) {
	o, ok := f.objs[key]
	return o, ok
}

func (f *fakeStore) Labels(key string) map[string]string { return f.labels[key] }

func (f *fakeStore) IndexNames() []string {
	out := make([]string, 0, len(f.indexes))
	for n := range f.indexes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (f *fakeStore) IndexValues(index string) []string {
	out := make([]string, 0, len(f.indexes[index]))
	for v := range f.indexes[index] {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func (f *fakeStore) IndexKeys(index, value string) []string {
	return append([]string(nil), f.indexes[index][value]...)
}

func (f *fakeStore) IndexEntriesOf(key string) map[string][]string {
	out := map[string][]string{}
	for name, vals := range f.indexes {
		for v, keys := range vals {
			for _, k := range keys {
				if k == key {
					out[name] = append(out[name], v)
				}
			}
		}
	}
	for _, vs := range out {
		sort.Strings(vs)
	}
	return out
}

// fakeControls records every call in order.
type fakeControls struct {
	mu      sync.Mutex
	calls   []string
	paused  bool
	stalled map[string]bool
	step    engine.StepResult
	rate    float64
	fail    error // returned by every action when set
}

func (c *fakeControls) record(format string, args ...any) {
	c.calls = append(c.calls, fmt.Sprintf(format, args...))
}

func (c *fakeControls) log() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

func (c *fakeControls) SetPaused(p bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("SetPaused(%v)", p)
	if c.fail != nil {
		return c.fail
	}
	c.paused = p
	return nil
}

func (c *fakeControls) Paused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused
}

func (c *fakeControls) Step(inf string) (engine.StepResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("Step(%s)", inf)
	if !c.paused {
		return engine.StepResult{}, errors.New("not paused")
	}
	return c.step, c.fail
}

func (c *fakeControls) ToggleStall(inf, l string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("ToggleStall(%s,%s)", inf, l)
	if c.stalled == nil {
		c.stalled = map[string]bool{}
	}
	c.stalled[inf+"/"+l] = !c.stalled[inf+"/"+l]
	return c.stalled[inf+"/"+l], c.fail
}

func (c *fakeControls) DropWatch() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("DropWatch")
	return c.fail
}

func (c *fakeControls) ExpireHistory() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("ExpireHistory")
	return c.fail
}

func (c *fakeControls) Resync(inf string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("Resync(%s)", inf)
	return c.fail
}

func (c *fakeControls) AdjustRate(step int) (float64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("AdjustRate(%d)", step)
	c.rate += float64(step) * 10
	return c.rate, c.fail
}
