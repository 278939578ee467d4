package agent

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
)

// A handler counts with the informer's own counting listener when
// client-go resyncs the two at the same checks, as every handler
// registered before the start with the informer's period: the agent adds
// one listener per informer, not one per handler. A period of the
// handler's own keeps a counter of its own.
func TestHandlersShareTheInformersCounter(t *testing.T) {
	src := benchLW{fcache.NewFakeControllerSource()}
	t.Cleanup(src.Shutdown)
	w := NewSet().build(src, &corev1.ConfigMap{}, 30*time.Second, cache.Indexers{}, informerConfig{})
	if _, err := w.AddEventHandler(nop{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddEventHandlerWithResyncPeriod(nop{}, time.Minute); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.RunWithContext(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if !cache.WaitForCacheSync(ctx.Done(), w.HasSynced) {
		t.Fatal("no sync")
	}
	probes, _ := w.currentProbes()
	w.mu.Lock()
	defer w.mu.Unlock()
	if p := probes[0]; p.counterReg != nil || p.counter != w.counter {
		t.Error("a handler with the informer's period has a counter of its own")
	}
	if p := probes[1]; p.counterReg == nil || p.counter == w.counter {
		t.Error("a handler with a period of its own counts with the informer's counter")
	}
}
