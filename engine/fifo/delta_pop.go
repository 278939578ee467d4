package fifo

import "k8s.io/client-go/tools/cache"

// Pop waits until a row is queued, removes the oldest row and hands its
// deltas (a cache.Deltas, oldest first) to process, then returns them with
// process's error. It returns cache.ErrFIFOClosed only once the queue is
// both closed and empty, so a closed queue still drains.
//
// process runs with the queue locked (see DeltaFIFO). isInInitialList is
// true while the queue has not synced, i.e. for the rows of the first
// Replace. The row is gone whatever process returns: as in client-go
// v0.37 there is no requeueing (ErrRequeue no longer exists). When the last
// initial row is popped the Done channel closes before process runs, while
// HasSynced, which needs the lock, answers true only after it returns.
// A nil process just pops.
func (f *DeltaFIFO) Pop(process cache.PopProcessFunc) (interface{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.pause.waitLocked(&f.cond, f); err != nil {
		return nil, err
	}

	inInitialList := !f.syncedClosed
	key := f.order.popFront()
	if f.initialRemaining > 0 {
		f.initialRemaining--
		f.checkSyncedLocked()
	}
	deltas := f.rows[key].deltas
	delete(f.rows, key)
	f.metrics.depth.Set(float64(f.order.len()))

	f.queued -= len(deltas)
	f.stats.pops++
	for _, d := range deltas {
		countDelta(&f.stats.popped, d)
	}

	// The row is unreachable from the queue now, so the caller owns deltas.
	if process == nil {
		return deltas, nil
	}
	return deltas, f.metrics.timed(func() error { return process(deltas, inInitialList) })
}

// SetHoldAfterWait implements Instrumented.
func (f *DeltaFIFO) SetHoldAfterWait(hold func() bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pause.hold = hold
}

// PopWaiting implements Instrumented.
func (f *DeltaFIFO) PopWaiting() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pause.waiting
}

func (f *DeltaFIFO) emptyLocked() bool  { return f.order.len() == 0 }
func (f *DeltaFIFO) closedLocked() bool { return f.closed }
