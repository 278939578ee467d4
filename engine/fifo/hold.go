package fifo

import "errors"

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

// held reports whether a pop that waited must leave the item queued.
func (h *holdAfterWait) held(waited bool) bool {
	return waited && h.hold != nil && h.hold()
}
