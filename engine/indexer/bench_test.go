package indexer

import (
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// BenchmarkIndexer measures the hot path: Add of a new object, then Update
// moving it between tag values, with a namespace and a multi-value index.
func BenchmarkIndexer(b *testing.B) {
	indexers := func() cache.Indexers {
		return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, "tags": tagsIndex}
	}
	const keys = 1024
	adds := make([]*obj, keys)
	updates := make([]*obj, keys)
	for n := range keys {
		ns := "ns" + strconv.Itoa(n%16)
		name := "o" + strconv.Itoa(n)
		adds[n] = newObj(ns, name, strconv.Itoa(2*n), "t"+strconv.Itoa(n%7))
		updates[n] = newObj(ns, name, strconv.Itoa(2*n+1), "t"+strconv.Itoa(n%5), "all")
	}
	run := func(b *testing.B, s cache.Indexer) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			k := n % keys
			if err := s.Add(adds[k]); err != nil {
				b.Fatal(err)
			}
			if err := s.Update(updates[k]); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.Run("ours", func(b *testing.B) {
		run(b, New(cache.MetaNamespaceKeyFunc, indexers()))
	})
	b.Run("client-go", func(b *testing.B) {
		run(b, cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers()))
	})
}
