package engine

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// streamingLW serves the initial list as a stream (sendInitialEvents): n
// ADDED events, then the bookmark annotated as the end of the initial
// events, as an API server with WatchList does.
type streamingLW struct {
	n       int
	mu      sync.Mutex
	watches []*watch.FakeWatcher
}

func (*streamingLW) List(metav1.ListOptions) (runtime.Object, error) {
	return nil, fmt.Errorf("this server streams its lists; LIST was not expected")
}

func (lw *streamingLW) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	w := watch.NewFakeWithChanSize(lw.n+1, false)
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		for i := range lw.n {
			p := pod(fmt.Sprint("p", i))
			p.ResourceVersion = "7"
			w.Add(p)
		}
		end := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "7", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
		w.Action(watch.Bookmark, end)
	}
	lw.watches = append(lw.watches, w)
	return w, nil
}

func (lw *streamingLW) stopAll() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for _, w := range lw.watches {
		w.Stop()
	}
}

// A streamed initial list (client-go v0.37's default, WatchListClient)
// arrives as watch events, and the reflector keeps them out of the queue
// until the end bookmark: with the tap, they are counted as what they
// are, ADDED events and a bookmark, so the API server stage does not say
// "no event yet · no bookmark yet" after a stream of them.
func TestStreamedListCountsItsEvents(t *testing.T) {
	lw := &streamingLW{n: 3}
	inf := NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, Options{Name: "pods", Instrumentation: Instrumentation{TapWatchStreams: true}})
	stop := runInformer(t, inf)
	waitfor.True(t, "the streamed list", func() bool { return inf.HasSynced() })
	r := inf.Snapshot().Reflector
	stop()
	lw.stopAll()
	if !r.ListStreamed || r.LastListItems != 3 || r.ListPages != 0 {
		t.Errorf("list: streamed %v, %d items, %d pages; want a streamed list of 3", r.ListStreamed, r.LastListItems, r.ListPages)
	}
	if r.WatchEvents != 4 || r.WatchAdded != 3 || r.WatchBookmarks != 1 {
		t.Errorf("watch events %d (added %d, bookmarks %d); want 4: the 3 streamed ADDED and the end bookmark", r.WatchEvents, r.WatchAdded, r.WatchBookmarks)
	}
	if r.LastBookmarkTime.IsZero() {
		t.Error("no bookmark time after the stream's end bookmark")
	}
}
