package cluster

import (
	"time"

	"k8s.io/utils/clock"
)

// DefaultBookmarkFrequency is how often kube-apiserver v1.37's watch cache
// sends a bookmark to a watch that asked for them: about once a minute
// (the cacher's defaultBookmarkFrequency).
const DefaultBookmarkFrequency = time.Minute

// bookmarkBeforeDeadline is how long before a watch's timeout the cacher
// sends it a last bookmark, so that the client re-watches from as recent
// a resourceVersion as it can.
const bookmarkBeforeDeadline = 2 * time.Second

// nextBookmark is when a watch whose deadline is deadline next gets a
// bookmark, scheduled at now: one frequency on, but never later than
// bookmarkBeforeDeadline before the deadline; ok is false once that moment
// has come (the watch gets no more). This is the cacheWatcher's rule in
// v1.37; the cacher then fires due watchers in one-second buckets from a
// timer of about a second, so a real bookmark comes up to a second or so
// later, which the demo leaves out.
func nextBookmark(now, deadline time.Time, every time.Duration) (time.Time, bool) {
	at := now.Add(every)
	if deadline.IsZero() {
		return at, true
	}
	if last := deadline.Add(-bookmarkBeforeDeadline); last.Before(at) {
		at = last
	}
	// Not after now: that last bookmark is the one just sent (the cacher's
	// clock has always moved on by then, a fake one may not have).
	if !at.After(now) {
		return time.Time{}, false
	}
	return at, true
}

// bookmarkTimer schedules one stream's bookmarks by nextBookmark on the
// cluster's timer clock. Its channel is nil when no bookmark is due, so
// a select on it blocks forever.
type bookmarkTimer struct {
	clock    clock.Clock
	every    time.Duration
	deadline time.Time
	t        clock.Timer
}

// newBookmarkTimer starts the schedule of a stream that opened now and
// times out after timeout; nil when the stream gets no periodic bookmarks.
func (c *Cluster) newBookmarkTimer(timeout time.Duration) *bookmarkTimer {
	if c.opts.BookmarkFrequency <= 0 {
		return nil
	}
	b := &bookmarkTimer{clock: c.timers, every: c.opts.BookmarkFrequency, deadline: c.timers.Now().Add(timeout)}
	b.reset()
	return b
}

// reset schedules the next bookmark from now.
func (b *bookmarkTimer) reset() {
	now := b.clock.Now()
	at, ok := nextBookmark(now, b.deadline, b.every)
	if !ok {
		b.stop()
		b.t = nil
		return
	}
	b.stop()
	b.t = b.clock.NewTimer(at.Sub(now))
}

// C fires when the next bookmark is due; nil (never) when none is.
func (b *bookmarkTimer) C() <-chan time.Time {
	if b == nil || b.t == nil {
		return nil
	}
	return b.t.C()
}

func (b *bookmarkTimer) stop() {
	if b != nil && b.t != nil {
		b.t.Stop()
	}
}
