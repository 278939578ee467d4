package local

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func pod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func TestListenerRecord(t *testing.T) {
	t.Parallel()
	l := NewListener("t", 0, nil)
	l.KeepSequence(true)
	l.OnAdd(pod("a", "1"), true)
	l.OnAdd(pod("b", "2"), false)
	l.OnUpdate(pod("a", "1"), pod("a", "3"))
	l.OnUpdate(pod("a", "3"), pod("a", "3"))
	l.OnDelete(pod("b", "2"))
	l.OnAdd(pod("c", "4"), false)
	l.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/c", Obj: pod("c", "4")})

	rec := l.Record()
	if rec.Adds != 3 || rec.InitialAdds != 1 || rec.Updates != 1 || rec.Syncs != 1 || rec.Deletes != 2 || rec.Tombstones != 1 || rec.Total() != 7 {
		t.Errorf("counts %+v", rec)
	}
	if len(rec.TombstoneKeys) != 1 || rec.TombstoneKeys["ns/c"] != 1 {
		t.Errorf("tombstone keys %v", rec.TombstoneKeys)
	}
	if len(rec.Anomalies) != 0 {
		t.Errorf("anomalies %v", rec.Anomalies)
	}
	want := []Call{
		{Callback: "OnAdd", Key: "ns/a", ResourceVersion: "1", InInitialList: true},
		{Callback: "OnAdd", Key: "ns/b", ResourceVersion: "2"},
		{Callback: "OnUpdate", Key: "ns/a", ResourceVersion: "3"},
		{Callback: "OnUpdate(sync)", Key: "ns/a", ResourceVersion: "3"},
		{Callback: "OnDelete", Key: "ns/b", ResourceVersion: "2"},
		{Callback: "OnAdd", Key: "ns/c", ResourceVersion: "4"},
		{Callback: "OnDelete", Key: "ns/c", ResourceVersion: "4", Tombstone: true},
	}
	if !slices.Equal(rec.Calls, want) {
		t.Errorf("calls\n%v\nwant\n%v", rec.Calls, want)
	}
	if v := l.View(); len(v) != 1 || v["ns/a"] != "3" {
		t.Errorf("view %v", v)
	}
}

func TestListenerAnomalies(t *testing.T) {
	t.Parallel()
	l := NewListener("t", 0, nil)
	l.OnAdd(pod("a", "1"), false)
	l.OnAdd(pod("a", "2"), false)                                               // add of a known key
	l.OnUpdate(pod("x", "1"), pod("x", "2"))                                    // update of an unknown key
	l.OnUpdate(pod("a", "1"), pod("a", "3"))                                    // old object is not the last seen
	l.OnDelete(pod("y", "1"))                                                   // delete of an unknown key
	l.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: pod("a", "2")}) // stale tombstone
	if got := len(l.Record().Anomalies); got != 5 {
		t.Errorf("%d anomalies, want 5: %v", got, l.Record().Anomalies)
	}
	if l.Record().Calls != nil {
		t.Error("the sequence was kept without KeepSequence")
	}
}

func TestListenerStall(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	l := NewListener("t", time.Millisecond, stop)
	l.SetStalled(true)
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		l.OnAdd(pod("a", "1"), false)
	}()
	select {
	case <-returned:
		t.Fatal("a stalled callback returned")
	case <-time.After(20 * time.Millisecond):
	}
	if l.Record().Adds != 0 {
		t.Error("a callback still in progress was recorded")
	}
	l.SetStalled(false)
	<-returned
	if l.Record().Adds != 1 {
		t.Error("the released callback was not recorded")
	}

	// Stop releases a stall for good.
	l.SetStalled(true)
	close(stop)
	l.OnAdd(pod("b", "1"), false)
	// So does release, for a removed listener.
	l2 := NewListener("u", time.Hour, nil)
	l2.SetStalled(true)
	l2.release()
	l2.OnAdd(pod("a", "1"), false)
}

// TestListenerDelay: short delays are paid in whole sleeps but add up, so
// n callbacks take at least n times the delay (less the small credit an
// oversleep may leave).
func TestListenerDelay(t *testing.T) {
	t.Parallel()
	const n, delay = 50, 200 * time.Microsecond
	l := NewListener("t", delay, nil)
	began := time.Now()
	for i := range n {
		l.OnAdd(pod(string(rune('a'+i%26))+string(rune('a'+i/26)), "1"), false)
	}
	if took := time.Since(began); took < n*delay-minSleep {
		t.Errorf("%d callbacks of %v took %v", n, delay, took)
	}
}

// syncedRegistration reports synced; the Listener asks nothing else of it.
type syncedRegistration struct {
	cache.ResourceEventHandlerRegistration
}

func (syncedRegistration) HasSynced() bool { return true }

// TestListenerEarlySync: HasSynced true inside an initial-list OnAdd is an
// anomaly, except once for a DeltaFIFO informer's listener, whose last
// initial add may legitimately see it (see Listener.lastAddMaySeeSync).
func TestListenerEarlySync(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		deltaFIFO bool
		want      int
	}{{false, 2}, {true, 1}} {
		l := NewListener("t", 0, nil)
		l.lastAddMaySeeSync = tc.deltaFIFO
		l.setRegistration(syncedRegistration{})
		l.OnAdd(pod("a", "1"), false) // not an initial add: no check
		l.OnAdd(pod("b", "2"), true)
		l.OnAdd(pod("c", "3"), true)
		if got := l.Record().Anomalies; len(got) != tc.want {
			t.Errorf("DeltaFIFO %v: anomalies %q, want %d", tc.deltaFIFO, got, tc.want)
		}
	}
}
