package tui

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// countingStore counts every call made to the reader it wraps.
type countingStore struct {
	sr                                        source.StoreReader
	gen, entries, object, names, values, keys atomic.Int64
}

func (s *countingStore) Generation() uint64 { s.gen.Add(1); return s.sr.Generation() }
func (s *countingStore) Entries() ([]source.Entry, uint64) {
	s.entries.Add(1)
	return s.sr.Entries()
}
func (s *countingStore) Object(key string) (source.Object, bool) {
	s.object.Add(1)
	return s.sr.Object(key)
}
func (s *countingStore) IndexNames() []string { s.names.Add(1); return s.sr.IndexNames() }
func (s *countingStore) IndexValues(index string) []string {
	s.values.Add(1)
	return s.sr.IndexValues(index)
}
func (s *countingStore) IndexKeys(index, value string) []string {
	s.keys.Add(1)
	return s.sr.IndexKeys(index, value)
}

// counts is every counter, in a fixed order.
func (s *countingStore) counts() [6]int64 {
	return [6]int64{s.gen.Load(), s.entries.Load(), s.object.Load(), s.names.Load(), s.values.Load(), s.keys.Load()}
}

// The Store view reads the cache in commands only: drawing the list, an
// object or an index level, however often, never calls the store.
func TestStoreViewDrawsWithoutReadingTheStore(t *testing.T) {
	cfg := fixtureConfig()
	cs := &countingStore{sr: podStore()}
	cfg.Stores["pods"] = cs
	h := newHarness(t, newControlledSource(cfg, &sourcetest.Controller{}))
	h.size(160, 48)
	h.frames(fixtureFrames)

	drawn := func(when string) {
		t.Helper()
		before := cs.counts()
		for range 50 {
			_ = h.m.View()
		}
		if after := cs.counts(); after != before {
			t.Fatalf("%s: drawing called the store: counters %v became %v", when, before, after)
		}
	}
	step := func(when string, read *atomic.Int64, keys ...string) {
		t.Helper()
		n := read.Load()
		h.keys(keys...)
		if read.Load() != n+1 {
			t.Fatalf("%s: the store was read %d times, want once", when, read.Load()-n)
		}
		drawn(when)
	}
	step("the list", &cs.entries, "4")
	if !strings.Contains(h.screen(), "default/web-0") {
		t.Fatalf("the list is not shown:\n%s", h.screen())
	}
	h.keys("/", "w", "e", "b", "enter", "j", "j")
	drawn("the filtered list")
	step("an object", &cs.object, "enter")
	if !strings.Contains(h.screen(), "default/web-10 · Pod · RV 48010") {
		t.Fatalf("the object is not shown:\n%s", h.screen())
	}
	h.keys("esc")
	step("the index names", &cs.names, "i")
	step("an index's values", &cs.values, "enter")
	step("a value's keys", &cs.keys, "enter")
	step("an object from the index", &cs.object, "enter")
}

// Every read of the Store view arrives as a message the harness feeds
// back: the keys (in a batch, as every load), an object, an index level,
// and a reload's batch or its "unchanged" answer.
func TestStoreReadsArriveAsMessages(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("4")
	sv := h.m.views[viewStore].(*storeView)
	if h.deliveries(storeBatchMsg{}) != 1 || !sv.loaded || sv.scroll.n != 60 {
		t.Fatalf("%d loads delivered, loaded %v, %d keys", h.deliveries(storeBatchMsg{}), sv.loaded, sv.scroll.n)
	}
	h.keys("i")
	if h.deliveries(indexItemsMsg{}) != 1 || sv.idx.loading || len(sv.idx.items) != 2 {
		t.Fatalf("%d index reads delivered; browser %+v", h.deliveries(indexItemsMsg{}), sv.idx)
	}
	h.keys("esc", "enter")
	if h.deliveries(objectMsg{}) != 1 || !sv.obj.found {
		t.Fatalf("%d object reads delivered; pane found %v", h.deliveries(objectMsg{}), sv.obj.found)
	}

	// An unchanged store is only asked its generation.
	h.frames(storeReloadTicks)
	if h.deliveries(storeUnchangedMsg{}) == 0 || h.deliveries(storeBatchMsg{}) != 1 || sv.loading {
		t.Fatalf("reload of an unchanged store: %d unchanged, %d batches, loading %v",
			h.deliveries(storeUnchangedMsg{}), h.deliveries(storeBatchMsg{}), sv.loading)
	}
	// A changed one is read again, the open object with it.
	podsChangeWithout(src, sv.obj.key)
	h.frames(storeReloadTicks)
	if h.deliveries(storeBatchMsg{}) != 2 || sv.obj.found || sv.scroll.n != 59 {
		t.Fatalf("reload of a changed store: %d batches, object found %v, %d keys", h.deliveries(storeBatchMsg{}), sv.obj.found, sv.scroll.n)
	}
	if !strings.Contains(h.screen(), "not in the cache any more") {
		t.Fatalf("the deleted object's pane does not say so:\n%s", h.screen())
	}
}
