package tui

import (
	tea "charm.land/bubbletea/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
)

// queueDetail is the open detail of one queue row. What it shows is read
// off the UI goroutine (readQueueDetail) when it opens and on every
// refresh while it stays open, and kept here until the next read.
type queueDetail struct {
	key   string            // the row's key; "" for a whole-store row (ReplacedAll, SyncAll, Bookmark)
	types []cache.DeltaType // the row's delta types when opened: what a keyless row is
	data  map[string]*detailData
}

// detailData is one informer's side of a detail: its queued deltas for the
// key when the source is a QueueReader, and the cache's state of the key.
type detailData struct {
	reader  bool         // the source implements QueueReader; deltas is authoritative
	deltas  cache.Deltas // oldest first
	present bool         // the cache holds the key
	rv      string       // its resourceVersion there
	rvKnown bool         // the cached object has metadata to read rv from
}

// queueDetailMsg delivers readQueueDetail's answer.
type queueDetailMsg struct {
	key  string
	data map[string]*detailData // by informer
}

// readQueueDetail reads key's queued deltas (when src can) and cache state
// in each informer. Runs as a command: a RealFIFO walks its whole queue to
// answer, which must never stall a keystroke.
func readQueueDetail(src source.Source, qr source.QueueReader, informers []string, key string) queueDetailMsg {
	msg := queueDetailMsg{key: key, data: make(map[string]*detailData, len(informers))}
	for _, inf := range informers {
		d := &detailData{}
		if qr != nil {
			d.reader = true
			d.deltas = qr.QueueDeltas(inf, key)
		}
		if key != "" {
			if sr := src.Store(inf); sr != nil {
				if obj, ok := sr.Object(key); ok {
					d.present = true
					d.rv, d.rvKnown = safe(obj.ResourceVersion), obj.HasMetadata
				}
			}
		}
		msg.data[inf] = d
	}
	return msg
}

// detailCmd re-reads the open detail for every informer it shows; nil when
// no detail is open.
func (v *queueView) detailCmd() tea.Cmd {
	if v.detail == nil {
		return nil
	}
	informers := []string{v.c.data.current}
	if v.c.comparing() && v.detail.key != "" {
		informers = informers[:0]
		for _, s := range v.c.compared() {
			informers = append(informers, s.Name)
		}
	}
	src, qr, key := v.c.src, v.c.caps.queue, v.detail.key
	return func() tea.Msg { return readQueueDetail(src, qr, informers, key) }
}

// applyDetail keeps a read if it is for the detail still open.
func (v *queueView) applyDetail(msg queueDetailMsg) {
	if v.detail == nil || v.detail.key != msg.key {
		return
	}
	v.detail.data = msg.data
}

// objectRV is obj's resourceVersion, and whether obj has metadata at all.
func objectRV(obj any) (string, bool) {
	if obj == nil {
		return "", false
	}
	a, err := meta.Accessor(obj)
	if err != nil {
		return "", false
	}
	return safe(a.GetResourceVersion()), true
}
