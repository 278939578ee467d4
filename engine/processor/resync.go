package processor

import (
	"time"

	"github.com/informtop/informtop/agent/instr"
)

// ShouldResync decides, for every listener, whether its resync is due now
// (a non-zero period and its next resync time reached), remembers the
// answer for the sync notifications that follow, and schedules the next
// resync of each due listener one period from now. It reports whether any
// listener is due. The reflector calls it before each queue resync; the
// answer stands until the next call.
func (p *Processor) ShouldResync() bool { return p.markDue(false) }

// ForceResync is a resync check at which every listener with a resync
// period is due, as if each one's period had just elapsed: they take the
// sync notifications that follow and their next resync is one period from
// now. Listeners without a period are not due, as at every check of
// client-go's reflector timer. It reports whether any listener is due.
func (p *Processor) ForceResync() bool { return p.markDue(true) }

// markDue is the resync check: a listener is due when it has a period and
// its next resync time is reached (or, forced, whenever it has a period).
func (p *Processor) markDue(force bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == stopped {
		return false
	}
	now := p.clock.Now()
	anyDue := false
	for _, l := range p.listeners {
		period := time.Duration(l.resyncPeriod.Load())
		l.resyncDue = period != 0 && (force || !now.Before(l.nextResync))
		if l.resyncDue {
			anyDue = true
			l.nextResync = now.Add(period)
		}
	}
	return anyDue
}

// ResyncCheckPeriodChanged recomputes every listener's effective resync
// period from its requested one and the informer's new check period. The
// next resync times are left alone, as in client-go.
func (p *Processor) ResyncCheckPeriodChanged(period time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.listeners {
		l.resyncPeriod.Store(int64(instr.EffectiveResync(l.requestedResync, period)))
	}
}
