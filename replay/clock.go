package replay

import (
	"context"
	"time"
)

// clock maps recorded times onto now: recorded time t is due at
// start + t/speed; speed 0 means everything is due at once.
type clock struct {
	start time.Time
	speed float64
}

// when is the moment recorded time t is due; the zero time when speed is
// 0 (everything is due at once).
func (c *clock) when(t int64) time.Time {
	if c.speed <= 0 {
		return time.Time{}
	}
	return c.start.Add(time.Duration(float64(t) / c.speed))
}

// wait waits until recorded time t; false when ctx or stop ended first.
func (c *clock) wait(ctx context.Context, stop <-chan struct{}, t int64) bool {
	return until(ctx, stop, c.when(t))
}

// until waits until the moment at (at once when it is past, or zero);
// false when ctx or stop ended first.
func until(ctx context.Context, stop <-chan struct{}, at time.Time) bool {
	var d time.Duration
	if !at.IsZero() {
		d = time.Until(at)
	}
	if d <= 0 {
		select {
		case <-ctx.Done():
			return false
		case <-stop:
			return false
		default:
			return true
		}
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	}
}

// scale turns a recorded duration into the replay's.
func (c *clock) scale(d time.Duration) time.Duration {
	if c.speed <= 0 {
		return 0
	}
	return time.Duration(float64(d) / c.speed)
}
