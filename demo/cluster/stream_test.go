package cluster

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// Tests of how streams end: timeouts, slow clients, outages, cancellation.

func TestWatchTimeouts(t *testing.T) {
	c := New(Options{WatchTimeout: 30 * time.Millisecond})
	lw := mustLW(t, c, Pods, Selector{})
	// The server's cap beats a longer request timeout ...
	if evs := untilClosed(t, mustWatch(t, lw, metav1.ListOptions{ResourceVersion: "1", TimeoutSeconds: ptr.To[int64](300)})); len(evs) != 0 {
		t.Fatalf("got %v", evs)
	}
	// ... and a shorter request timeout beats the server's.
	c2 := New(Options{})
	lw2 := mustLW(t, c2, Pods, Selector{})
	start := time.Now()
	if evs := untilClosed(t, mustWatch(t, lw2, metav1.ListOptions{ResourceVersion: "1", TimeoutSeconds: ptr.To[int64](1)})); len(evs) != 0 {
		t.Fatalf("got %v", evs)
	}
	if time.Since(start) < time.Second {
		t.Fatal("closed before its timeoutSeconds")
	}
	if c.Stats().WatchesTimedOut != 1 || c2.Stats().WatchesTimedOut != 1 {
		t.Fatal("timeouts not counted")
	}
}

func TestSlowWatcherIsClosedAndMissesNothingItWasSent(t *testing.T) {
	c := New(Options{Seed: 16, WatchBuffer: 4})
	if err := c.Populate(Pods, 3); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	from := c.ResourceVersion()
	w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(from)})
	var want []change
	for i := range 20 {
		obj, err := c.Update(Pods, c.Keys(Pods)[i%3])
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, change{watch.Modified, keyOf(obj), rvOf(obj)})
	}
	// The watch cache waits its dispatch budget for room, then gives up.
	waitfor.True(t, "the slow watcher to be terminated", func() bool { return c.Stats().WatchesSlow == 1 })
	var got []change
	for _, ev := range untilClosed(t, w) {
		got = append(got, changeOf(ev))
	}
	// The client got a prefix (at most the buffer plus one in hand) and can
	// resume after its last event without loss.
	if len(got) > 5 {
		t.Fatalf("got %d events from a 4-event buffer", len(got))
	}
	sameChanges(t, got, want[:len(got)])
}

func TestUnavailableServerRefusesAndClosesStreams(t *testing.T) {
	c := New(Options{})
	if err := c.Populate(Pods, 2); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{Namespace: "default"})
	w := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: rvString(c.ResourceVersion())})
	c.SetAvailable(false)
	if evs := untilClosed(t, w); len(evs) != 0 {
		t.Fatalf("got %v", evs)
	}
	_, lerr := lw.List(metav1.ListOptions{ResourceVersion: "0", Limit: 500})
	_, werr := lw.Watch(metav1.ListOptions{ResourceVersion: "1"})
	for _, err := range []error{lerr, werr} {
		if !utilnet.IsConnectionRefused(err) {
			t.Fatalf("got %v, want connection refused", err)
		}
	}
	if want := `Get "https://127.0.0.1:6443/api/v1/namespaces/default/pods?limit=500&resourceVersion=0": dial tcp 127.0.0.1:6443: connect: connection refused`; lerr.Error() != want {
		t.Fatalf("error text\n got  %s\n want %s", lerr, want)
	}
	if s := c.Stats(); s.Refused != 2 || s.WatchesDropped != 1 {
		t.Fatalf("stats %+v", s)
	}
	c.SetAvailable(true)
	if items, _ := mustList(t, lw, metav1.ListOptions{}); len(items) != len(serverRVs(c, Pods, &lw.filter)) {
		t.Fatal("list after recovery is incomplete")
	}
}

func TestWatchEndsWithItsContextAndStop(t *testing.T) {
	c := New(Options{})
	lw := mustLW(t, c, Pods, Selector{})
	ctx, cancel := context.WithCancel(context.Background())
	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "1", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	untilClosed(t, w)
	w2 := mustWatch(t, lw, metav1.ListOptions{ResourceVersion: "1"})
	w2.Stop()
	w2.Stop() // idempotent
	untilClosed(t, w2)
	waitfor.True(t, "streams to deregister", func() bool { return c.Stats().WatchesOpen == 0 })
	if _, err := lw.WatchWithContext(ctx, metav1.ListOptions{}); err == nil {
		t.Fatal("watch with a cancelled context opened")
	}
}
