package local

import (
	"context"
	"errors"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
)

// The source's Cuts copies a running informer's cache; an unknown
// informer and one that has received nothing are told apart.
func TestCutsCopiesTheCache(t *testing.T) {
	s, c := newPods(t, 3)
	cuts := s.Controls().Cuts
	if cuts == nil {
		t.Fatal("a source of informers in this process cannot cut them")
	}
	if _, err := cuts.Cut(t.Context(), "pods"); err == nil {
		t.Fatal("an informer that has not started was cut")
	}
	run(t, s)
	cut, err := cuts.Cut(t.Context(), "pods")
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Objects) != len(c.Keys(cluster.Pods)) || cut.ResourceVersion == "" {
		t.Errorf("cut %+v, want the %d pods at a resourceVersion", cut, len(c.Keys(cluster.Pods)))
	}
	_, err = cuts.Cut(t.Context(), "nodes")
	if !errors.Is(err, source.ErrUnknownInformer) || err.Error() != `no informer named "nodes"` {
		t.Errorf("cutting an unknown informer: %v", err)
	}
}

// blockedList is a ListerWatcher whose List waits until the test ends,
// after saying it was called.
type blockedList struct {
	called chan struct{}
	done   <-chan struct{}
}

func (l blockedList) List(metav1.ListOptions) (runtime.Object, error) {
	close(l.called)
	<-l.done
	return nil, errors.New("the test ended")
}

func (l blockedList) Watch(metav1.ListOptions) (watch.Interface, error) {
	return nil, errors.New("no watch")
}

func (blockedList) IsWatchListSemanticsUnSupported() bool { return true }

// An informer whose first list has not returned is
// source.ErrNothingReceived, and still engine.ErrNothingReceived.
func TestCutBeforeTheFirstListIsNothingReceived(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	lw := blockedList{called: make(chan struct{}), done: ctx.Done()}
	inf := engine.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, engine.Options{Name: "idle"})
	if _, err := CutInformer(inf); err == nil || errors.Is(err, source.ErrNothingReceived) {
		t.Fatalf("an informer that has not started: %v, want another failure", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	<-lw.called
	_, err := CutInformer(inf)
	if !errors.Is(err, source.ErrNothingReceived) || !errors.Is(err, engine.ErrNothingReceived) {
		t.Fatalf("before the first list: %v, want ErrNothingReceived of source and engine", err)
	}
	if want := "informer idle: the informer has not received its first list yet"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
