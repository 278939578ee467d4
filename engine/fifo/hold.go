package fifo

import (
	"errors"
	"sync"

	"k8s.io/client-go/tools/cache"
)

// ErrHeld is what Pop and PopBatch return, without taking anything, when
// they had to wait for an item and the hold set by SetHoldAfterWait says
// the consumer must not take it now: the consumer was paused while its
// pop waited inside the queue. It calls again once it may.
var ErrHeld = errors.New("fifo: an item arrived while the consumer was paused; it stays queued")

// holdAfterWait is the part of a queue the consumer's pause reaches.
// Locking: both fields are guarded by the queue's own lock.
type holdAfterWait struct {
	// hold is asked, with the queue locked, after a pop waited for an
	// item; nil never holds.
	hold func() bool
	// waiting: a pop is blocked waiting for an item.
	waiting bool
}

// queueState is what a pop's wait reads of its queue, with the lock held.
type queueState interface {
	emptyLocked() bool
	closedLocked() bool
}

// waitLocked blocks on cond (the queue's, its lock held) until q has an
// item. It returns cache.ErrFIFOClosed once q is closed and empty, so
// Close lets queued items drain first, and ErrHeld when it waited and the
// consumer's hold says to leave the item queued.
func (h *holdAfterWait) waitLocked(cond *sync.Cond, q queueState) error {
	waited := false
	for q.emptyLocked() {
		if q.closedLocked() {
			return cache.ErrFIFOClosed
		}
		h.waiting = true
		cond.Wait()
		h.waiting = false
		waited = true
	}
	if waited && h.hold != nil && h.hold() {
		return ErrHeld
	}
	return nil
}
