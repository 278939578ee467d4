package local

import (
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// Listener is a simulated cache.ResourceEventHandler. Each callback takes the
// listener's delay, then blocks while the listener is stalled (so the
// dashboard shows it stuck "in OnUpdate for 12s"), then records what it was
// told. The source's stop channel cuts both the delay and a stall short, so a
// stalled listener never keeps its source from stopping.
//
// It keeps a view of the cache as its callbacks describe it (key to
// resourceVersion); once its backlog is empty that view must equal the
// informer's store.
//
// Locking: the processor calls the callbacks one at a time; mu guards rec,
// view and sawEarlySync against readers on other goroutines and is never
// held while waiting. stallMu guards the stall switch.
type Listener struct {
	name     string
	delay    time.Duration
	stop     <-chan struct{}
	released chan struct{} // closed by release: no more delays or stalls
	once     sync.Once

	keepSeq atomic.Bool
	reg     atomic.Pointer[registration]
	owed    time.Duration // delay not slept yet; only the callback goroutine uses it

	// lastAddMaySeeSync is set, before registration, for a listener of a
	// DeltaFIFO informer. That queue (as client-go v0.37's) turns synced
	// when its last initial row is popped, before the row is processed, so
	// the registration may already report synced inside the last
	// initial-list OnAdd. RealFIFO waits until the row is processed.
	lastAddMaySeeSync bool

	// cost, when set, gives each callback's time instead of delay (a
	// replay reproducing recorded durations); observe, when set, is told
	// each callback and how long it took (a recorder). callStart is when
	// the current callback began; only the callback goroutine uses it.
	cost      func() time.Duration
	observe   atomic.Pointer[CallObserver]
	callStart time.Time

	stallMu sync.Mutex
	stalled bool
	resume  chan struct{} // closed when the current stall ends

	mu           sync.Mutex
	rec          Record
	view         map[string]string
	sawEarlySync bool   // an initial-list OnAdd already saw HasSynced true
	mutateKey    string // see MutateNext
}

// registration boxes the handle so it can sit in an atomic.Pointer.
type registration struct {
	cache.ResourceEventHandlerRegistration
}

var _ cache.ResourceEventHandler = (*Listener)(nil)

// minSleep is the shortest sleep a callback takes; shorter delays add up
// until they reach it.
const minSleep = time.Millisecond

// NewListener returns a listener that spends delay in every callback. Its
// delays and stalls end early once stop is closed (nil: never).
func NewListener(name string, delay time.Duration, stop <-chan struct{}) *Listener {
	return &Listener{
		name:     name,
		delay:    delay,
		stop:     stop,
		released: make(chan struct{}),
		rec:      Record{TombstoneKeys: map[string]int{}},
		view:     map[string]string{},
	}
}

// Name is the name the listener is registered under.
func (l *Listener) Name() string { return l.name }

// Delay is the time each callback takes.
func (l *Listener) Delay() time.Duration { return l.delay }

// KeepSequence turns recording of the full callback sequence on or off.
func (l *Listener) KeepSequence(on bool) { l.keepSeq.Store(on) }

// SetStalled stalls the listener (its current or next callback blocks) or
// lets it go on.
func (l *Listener) SetStalled(stalled bool) {
	l.stallMu.Lock()
	defer l.stallMu.Unlock()
	if stalled == l.stalled {
		return
	}
	l.stalled = stalled
	if stalled {
		l.resume = make(chan struct{})
	} else {
		close(l.resume)
	}
}

// Stalled reports whether the listener is stalled.
func (l *Listener) Stalled() bool {
	l.stallMu.Lock()
	defer l.stallMu.Unlock()
	return l.stalled
}

// Record returns a copy of what the listener has been told.
func (l *Listener) Record() Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rec.clone()
}

// TombstonedAll reports whether a DeletedFinalStateUnknown arrived for every key.
func (l *Listener) TombstonedAll(keys []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if l.rec.TombstoneKeys[k] == 0 {
			return false
		}
	}
	return true
}

// Counts returns the record's counters without copying the sequence.
func (l *Listener) Counts() Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.rec
	c.TombstoneKeys, c.Anomalies, c.Calls = nil, nil, nil
	return c
}

// View returns the cache as the callbacks described it: key to resourceVersion.
func (l *Listener) View() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.view)
}

// OnAdd implements cache.ResourceEventHandler.
func (l *Listener) OnAdd(obj any, isInInitialList bool) {
	// A registration must not report synced while one of its initial-list
	// adds is still running.
	syncedEarly := false
	if r := l.reg.Load(); isInInitialList && r != nil {
		syncedEarly = r.HasSynced()
	}
	l.work()
	key, rv := KeyAndVersion(obj)
	l.mutate(key, obj)
	l.mu.Lock()
	defer l.mu.Unlock()
	if syncedEarly {
		// Tolerated once, where the queue allows it: only the last initial
		// add can see it, so a second one is an anomaly anyway.
		if l.lastAddMaySeeSync && !l.sawEarlySync {
			l.sawEarlySync = true
		} else {
			l.rec.anomaly("HasSynced was already true during the initial-list OnAdd of " + key)
		}
	}
	if _, known := l.view[key]; known {
		l.rec.anomaly("OnAdd for " + key + ", which is already known")
	}
	l.view[key] = rv
	l.rec.Adds++
	if isInInitialList {
		l.rec.InitialAdds++
	}
	l.appendCall(Call{Callback: "OnAdd", Key: key, ResourceVersion: rv, InInitialList: isInInitialList})
}

// OnUpdate implements cache.ResourceEventHandler.
func (l *Listener) OnUpdate(oldObj, newObj any) {
	l.work()
	key, rv := KeyAndVersion(newObj)
	_, oldRV := KeyAndVersion(oldObj)
	l.mutate(key, newObj)
	sawMutation := carriesMutation(oldObj)
	l.mu.Lock()
	defer l.mu.Unlock()
	if sawMutation {
		l.rec.SawMutated++
	}
	if seen, known := l.view[key]; !known {
		l.rec.anomaly("OnUpdate for " + key + ", which was never added")
	} else if seen != oldRV {
		l.rec.anomaly(fmt.Sprintf("OnUpdate for %s from resourceVersion %s, but the last one seen was %s", key, oldRV, seen))
	}
	l.view[key] = rv
	callback := "OnUpdate"
	if rv == oldRV {
		l.rec.Syncs++
		callback = "OnUpdate(sync)"
	} else {
		l.rec.Updates++
	}
	l.appendCall(Call{Callback: callback, Key: key, ResourceVersion: rv})
}

// OnDelete implements cache.ResourceEventHandler.
func (l *Listener) OnDelete(obj any) {
	l.work()
	tomb, isTomb := obj.(cache.DeletedFinalStateUnknown)
	var key, rv string
	if isTomb {
		key = tomb.Key
		_, rv = KeyAndVersion(tomb.Obj)
	} else {
		key, rv = KeyAndVersion(obj)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	seen, known := l.view[key]
	switch {
	case !known:
		l.rec.anomaly("OnDelete for " + key + ", which was never added")
	case isTomb && seen != rv:
		l.rec.anomaly(fmt.Sprintf("tombstone for %s carries resourceVersion %s, but the last one seen was %s", key, rv, seen))
	}
	delete(l.view, key)
	l.rec.Deletes++
	if isTomb {
		l.rec.Tombstones++
		l.rec.TombstoneKeys[key]++
	}
	l.appendCall(Call{Callback: "OnDelete", Key: key, ResourceVersion: rv, Tombstone: isTomb})
}

// appendCall keeps the sequence when asked to; mu is held.
func (l *Listener) appendCall(c Call) {
	if o := l.observe.Load(); o != nil {
		(*o)(c, time.Since(l.callStart))
	}
	if l.keepSeq.Load() {
		l.rec.Calls = append(l.rec.Calls, c)
	}
}

// work is the time a callback takes: the delay, then however long a stall
// lasts. Both end at once when the source stops.
//
// Timers cannot sleep much less than a millisecond, so delays are owed and
// paid in sleeps of at least minSleep: on average every callback takes
// delay, whether that is 20ms or 20µs.
func (l *Listener) work() {
	l.callStart = time.Now()
	delay := l.delay
	if l.cost != nil {
		delay = l.cost()
	}
	if delay > 0 {
		owed := l.owed + delay
		if owed >= minSleep {
			began := time.Now()
			t := time.NewTimer(owed)
			select {
			case <-t.C:
			case <-l.stop:
				t.Stop()
			case <-l.released:
				t.Stop()
			}
			// Oversleeping is credited, but only a little, so a long pause
			// never turns into a run of instant callbacks.
			owed = max(owed-time.Since(began), -minSleep)
		}
		l.owed = owed
	}
	for {
		l.stallMu.Lock()
		stalled, resume := l.stalled, l.resume
		l.stallMu.Unlock()
		if !stalled {
			return
		}
		select {
		case <-resume:
		case <-l.stop:
			return
		case <-l.released:
			return
		}
	}
}

// release lets a removed listener's last callback return at once and makes
// every later one instant, so its goroutine ends promptly.
func (l *Listener) release() { l.once.Do(func() { close(l.released) }) }

// setRegistration lets initial-list adds check the registration's HasSynced.
func (l *Listener) setRegistration(r cache.ResourceEventHandlerRegistration) {
	l.reg.Store(&registration{r})
}

// markSynced records that the registration has synced.
func (l *Listener) markSynced(at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.Synced = true
	l.rec.SyncedAt = at
	l.rec.InitialAddsAtSync = l.rec.InitialAdds
}

// KeyAndVersion names an object as the informer's key function does.
func KeyAndVersion(obj any) (key, rv string) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		key = fmt.Sprintf("<%T without a key>", obj)
	}
	if acc, err := meta.Accessor(obj); err == nil {
		rv = acc.GetResourceVersion()
	}
	return key, rv
}
