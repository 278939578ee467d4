package demo

import (
	"fmt"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// rateLadder are the workload rates AdjustRate moves between; the top
// rung is MaxRate.
var rateLadder = []float64{0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, MaxRate}

// errAtMaxRate is what the + key says at the top of the ladder.
var errAtMaxRate = fmt.Errorf("the workload is at its maximum, %s changes/s: the demo's simulated API server delivers no more (- lowers it)", humanize.Count(MaxRate))

// DropWatch closes every open watch stream on the server.
func (d *Demo) DropWatch() error {
	d.cluster.DropWatches()
	d.Log("fault: the server dropped every watch")
	return nil
}

// ExpireHistory compacts the server's history so the next watch gets 410 Gone.
func (d *Demo) ExpireHistory() error {
	d.cluster.ExpireHistory()
	d.Log("fault: the server expired its history (the next watch gets 410 Gone)")
	return nil
}

// AdjustRate moves the workload rate one rung up (step > 0) or down
// (step < 0) the ladder 0, 1, 2, 5, 10, 20, 50 … MaxRate changes per
// second. A step up at MaxRate stays there and says so.
func (d *Demo) AdjustRate(step int) (float64, error) {
	cur := d.work.Rate()
	next := cur
	switch {
	case step > 0 && cur >= MaxRate:
		return cur, errAtMaxRate
	case step > 0:
		next = rateLadder[len(rateLadder)-1]
		for _, r := range rateLadder {
			if r > cur {
				next = r
				break
			}
		}
	case step < 0:
		next = 0
		for i := len(rateLadder) - 1; i >= 0; i-- {
			if rateLadder[i] < cur {
				next = rateLadder[i]
				break
			}
		}
	}
	d.SetRate(next)
	return next, nil
}

// Rate is the background workload in changes per second.
func (d *Demo) Rate() float64 { return d.work.Rate() }

// SetRate sets the background workload in changes per second, at most
// MaxRate; 0 stops it.
func (d *Demo) SetRate(perSecond float64) {
	d.work.SetRate(perSecond)
	msg := fmt.Sprintf("workload rate %g changes/s", d.work.Rate())
	if w := d.rateWarning(); w != "" {
		msg += ": " + w
	}
	d.Log(msg)
}

// SetServerAvailable makes the simulated API server refuse connections
// (false) or accept them again (true).
func (d *Demo) SetServerAvailable(up bool) {
	d.cluster.SetAvailable(up)
	if up {
		d.Log("fault cleared: the API server accepts connections again")
	} else {
		d.Log("fault: the API server refuses connections")
	}
}
