package tui

import (
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine"
)

// informerSource is the smallest Source over one engine informer: what a
// local-engine dashboard reads, with no controls, and a QueueReader.
type informerSource struct {
	inf *engine.Informer
}

func (s informerSource) Kind() string                 { return "bench" }
func (s informerSource) Title() string                { return "bench" }
func (s informerSource) Notes() []string              { return nil }
func (s informerSource) Snapshots() []engine.Snapshot { return []engine.Snapshot{s.inf.Snapshot()} }
func (s informerSource) Controls() Controls           { return nil }
func (s informerSource) Events(from uint64, max int) ([]engine.Event, uint64, uint64) {
	return s.inf.Events().Since(from, max)
}
func (s informerSource) Store(string) StoreReader { return s.inf.StoreView() }

func (s informerSource) QueueDeltas(_, key string) cache.Deltas { return s.inf.QueueDeltas(key) }
