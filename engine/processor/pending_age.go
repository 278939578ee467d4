package processor

import "time"

// maxCheckpoints bounds a listener's checkpoints; when full, every other
// one after the oldest is dropped, which keeps the oldest pending
// notification's age exact and only coarsens younger ones.
const maxCheckpoints = 64

// checkpoint says that by time at, seq notifications had been queued.
type checkpoint struct {
	seq uint64
	at  time.Time
}

// checkpoints date a listener's queued notifications without reading the
// clock per notification: Checkpoint records (queued so far, now) on each
// upkeep tick, and a notification's age is that of the first checkpoint
// taken after it was queued. Guarded by the listener's mu.
type checkpoints struct {
	queued uint64 // notifications ever queued
	list   []checkpoint
}

// note records a checkpoint at now, first dropping those older than the
// oldest unhandled notification (number first, counting from 1).
func (c *checkpoints) note(first uint64, now time.Time) {
	drop := 0
	for drop < len(c.list) && c.list[drop].seq < first {
		drop++
	}
	c.list = append(c.list[:0], c.list[drop:]...)
	if first > c.queued {
		return // nothing unhandled
	}
	if n := len(c.list); n > 0 && c.list[n-1].seq == c.queued {
		return // nothing queued since the last checkpoint
	}
	if len(c.list) == maxCheckpoints {
		kept := c.list[:1]
		for i := 2; i < len(c.list); i += 2 {
			kept = append(kept, c.list[i])
		}
		c.list = kept
	}
	c.list = append(c.list, checkpoint{seq: c.queued, at: now})
}

// since is when notification number first was queued at the latest; zero
// when it was queued after the newest checkpoint (less than a tick ago).
func (c *checkpoints) since(first uint64) time.Time {
	for _, ck := range c.list {
		if ck.seq >= first {
			return ck.at
		}
	}
	return time.Time{}
}

// unhandledLocked counts the notifications not yet returned from the
// handler: the backlog and the one in progress. Caller holds l.mu.
func (l *Listener) unhandledLocked() uint64 {
	n := uint64(l.backlog.Len())
	if l.busy {
		n++
	}
	return n
}

// firstUnhandledLocked numbers the oldest unhandled notification, counting
// from 1; past queued when there is none. Caller holds l.mu.
func (l *Listener) firstUnhandledLocked() uint64 {
	return l.pending.queued - l.unhandledLocked() + 1
}

// oldestPendingSinceLocked is when the oldest unhandled notification was
// queued at the latest; zero when there is none. Caller holds l.mu.
func (l *Listener) oldestPendingSinceLocked() time.Time {
	if l.stopped || l.unhandledLocked() == 0 {
		return time.Time{}
	}
	return l.pending.since(l.firstUnhandledLocked())
}

// Checkpoint dates every listener's queued notifications at now; the
// informer calls it about once a second. It takes each listener's lock
// briefly, never waiting for a handler.
func (p *Processor) Checkpoint(now time.Time) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, l := range p.listeners {
		l.mu.Lock()
		if !l.stopped {
			l.pending.note(l.firstUnhandledLocked(), now)
		}
		l.mu.Unlock()
	}
}
