package demo

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informtop/informtop/demo/cluster"
)

// driver applies the background workload at a rate the UI can change,
// through the cluster Workload's Step. Scripts need a synchronous hold: once
// hold returns, no change is in flight and none starts until release, which
// is what lets a scenario know exactly which changes the informers missed.
//
// Locking: mu is held while changes are applied and guards holds; the rate
// is an atomic so the UI reads it without waiting for a change to finish.
type driver struct {
	w    *cluster.Workload
	rate atomic.Uint64 // math.Float64bits of changes per second
	wake chan struct{} // nudges run after a rate change or a release

	mu    sync.Mutex
	holds int
}

// MaxRate is the most background changes per second the demo applies
// (--rate, the + key). Measured on a 2-core machine, steady scenario with
// --once --duration 10s: at 5,000/s every change reached the informers
// (nothing left pending on the simulated etcd's side, the four watches
// never cut); at 20,000/s the simulated server's watch path still
// delivered only about 5,000/s while the events waiting for it grew by
// thousands a second, and the process's memory with them; at 1e6/s and
// above one tick's changes held the workload for seconds. More would only
// pile up memory, not show anything new.
const MaxRate = 5000

// driverTick is the shortest pause between two batches of changes.
const driverTick = 10 * time.Millisecond

// applyBatch bounds the changes made under one hold of mu: between two
// batches a hold (the script's) or the end of the run takes effect, however
// many changes are owed (up to a second's worth after a pause).
const applyBatch = 64

func newDriver(w *cluster.Workload, rate float64) *driver {
	dr := &driver{w: w, wake: make(chan struct{}, 1)}
	dr.SetRate(rate)
	return dr
}

// Rate is the background rate in changes per second.
func (dr *driver) Rate() float64 { return math.Float64frombits(dr.rate.Load()) }

// SetRate changes the background rate, at most MaxRate; 0 stops it.
func (dr *driver) SetRate(perSecond float64) {
	if perSecond < 0 || math.IsNaN(perSecond) {
		perSecond = 0
	}
	dr.rate.Store(math.Float64bits(min(perSecond, MaxRate)))
	dr.nudge()
}

func (dr *driver) nudge() {
	select {
	case dr.wake <- struct{}{}:
	default:
	}
}

// hold stops the background workload; when it returns no change is being
// applied. Holds nest.
func (dr *driver) hold() {
	dr.mu.Lock()
	dr.holds++
	dr.mu.Unlock()
}

// release undoes one hold.
func (dr *driver) release() {
	dr.mu.Lock()
	if dr.holds > 0 {
		dr.holds--
	}
	dr.mu.Unlock()
	dr.nudge()
}

// held reports whether the workload is held.
func (dr *driver) held() bool {
	dr.mu.Lock()
	defer dr.mu.Unlock()
	return dr.holds > 0
}

// burst applies n updates at once (the workload picks a few hot keys),
// whether or not the background workload is held.
func (dr *driver) burst(n int) {
	dr.mu.Lock()
	defer dr.mu.Unlock()
	dr.w.Burst(n)
}

// apply makes n background changes, applyBatch at a time, until the
// workload is held or ctx ends.
func (dr *driver) apply(ctx context.Context, n int) {
	for n > 0 && ctx.Err() == nil {
		b := min(n, applyBatch)
		dr.mu.Lock()
		if dr.holds > 0 {
			dr.mu.Unlock()
			return
		}
		dr.w.Step(b)
		dr.mu.Unlock()
		n -= b
	}
}

// run paces changes until ctx ends. Changes owed for the time elapsed are
// applied in batches, at most one second's worth at once, so a pause of the
// process (or a rate change) never unleashes a flood.
func (dr *driver) run(ctx context.Context) {
	owed := 0.0
	last := time.Now()
	for {
		rate := dr.Rate()
		if rate <= 0 || dr.held() {
			owed = 0
			select {
			case <-ctx.Done():
				return
			case <-dr.wake:
			}
			last = time.Now()
			continue
		}
		tick := time.Duration(float64(time.Second) / rate)
		tick = max(tick, driverTick)
		t := time.NewTimer(tick)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-dr.wake:
			t.Stop()
		case <-t.C:
		}
		now := time.Now()
		owed = min(owed+rate*now.Sub(last).Seconds(), math.Max(rate, 1))
		last = now
		if n := int(owed); n > 0 {
			owed -= float64(n)
			dr.apply(ctx, n)
		}
	}
}
