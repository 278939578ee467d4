package indexer

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// obj is a minimal API object: metadata plus a list of tags for the
// multi-value index.
type obj struct {
	metav1.ObjectMeta
	Tags []string
}

func newObj(ns, name, rv string, tags ...string) *obj {
	return &obj{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}, Tags: tags}
}

func tagsIndex(o any) ([]string, error) {
	t, ok := o.(*obj)
	if !ok {
		return nil, fmt.Errorf("not an *obj: %T", o)
	}
	return t.Tags, nil
}

// countIndex files every object under exactly one value that changes when
// its tag count changes: a single-value index whose value moves.
func countIndex(o any) ([]string, error) {
	t, ok := o.(*obj)
	if !ok {
		return nil, fmt.Errorf("not an *obj: %T", o)
	}
	return []string{fmt.Sprintf("n%d", len(t.Tags))}, nil
}

// noneIndex files nothing anywhere.
func noneIndex(any) ([]string, error) { return nil, nil }

// firstIndex files an object under its first tag, if any.
func firstIndex(o any) ([]string, error) {
	t, ok := o.(*obj)
	if !ok {
		return nil, fmt.Errorf("not an *obj: %T", o)
	}
	if len(t.Tags) == 0 {
		return []string{}, nil
	}
	return t.Tags[:1], nil
}

func testIndexers() cache.Indexers {
	return cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		"tags":               tagsIndex,
		"count":              countIndex,
		"none":               noneIndex,
	}
}

func newTestIndexer() *Indexer {
	return New(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers())
}

func mustKeys(t *testing.T, ix cache.Indexer, index, value string) []string {
	t.Helper()
	keys, err := ix.IndexKeys(index, value)
	if err != nil {
		t.Fatalf("IndexKeys(%q, %q): %v", index, value, err)
	}
	return keys
}

func sortedValues(ix cache.Indexer, index string) []string {
	v := ix.ListIndexFuncValues(index)
	slices.Sort(v)
	return v
}

func keysOf(t *testing.T, objs []any) []string {
	t.Helper()
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(o)
		if err != nil {
			t.Fatalf("key of %v: %v", o, err)
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if got == nil || !slices.Equal(got, want) {
		t.Fatalf("%s: got %#v, want %#v", what, got, want)
	}
}

// checkConsistent recomputes every index from the stored objects and
// requires the maintained indexes to match exactly, with no empty value sets
// and no index for an unknown name.
func checkConsistent(t testing.TB, ix *Indexer) {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	want := map[string]map[string][]string{}
	for name, fn := range ix.indexers {
		for key, o := range ix.items {
			for _, v := range valuesFor(fn, name, key, o) {
				if want[name] == nil {
					want[name] = map[string][]string{}
				}
				if !slices.Contains(want[name][v], key) {
					want[name][v] = append(want[name][v], key)
				}
			}
		}
	}
	for name, idx := range ix.indices {
		if _, ok := ix.indexers[name]; !ok {
			t.Fatalf("index %q has no index function", name)
		}
		if len(idx) != len(want[name]) {
			t.Fatalf("index %q has %d values %v, want %d %v", name, len(idx), slices.Sorted(maps.Keys(idx)), len(want[name]), want[name])
		}
		for v, set := range idx {
			if len(set) == 0 {
				t.Fatalf("index %q keeps an empty set for %q", name, v)
			}
			got := slices.Sorted(maps.Keys(set))
			w := slices.Clone(want[name][v])
			slices.Sort(w)
			if !slices.Equal(got, w) {
				t.Fatalf("index %q value %q: keys %v, want %v", name, v, got, w)
			}
		}
	}
	for name := range want {
		if _, ok := ix.indices[name]; !ok {
			t.Fatalf("index %q missing, want %v", name, want[name])
		}
	}
}
