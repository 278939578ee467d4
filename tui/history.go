package tui

import (
	"math"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/source"
)

const (
	historyPoints  = 60          // one minute of trend at the default spacing
	historySpacing = time.Second // rates are averaged over this, which keeps them calm
)

// Watch event kinds, indexes into the per-kind arrays of a sample.
const (
	evAdded = iota
	evModified
	evDeleted
	evListed // items returned by LIST calls
	evKinds
)

var evKindNames = [evKinds]string{"ADDED", "MODIFIED", "DELETED", "LISTED"}

// sample is the counters of one snapshot that the UI turns into rates.
type sample struct {
	t         time.Time
	events    [evKinds]uint64
	queueIn   uint64 // deltas ever queued
	queueOut  uint64 // deltas ever popped
	listeners map[string]listenerSample
}

type listenerSample struct {
	pending   int
	delivered uint64
	// busySince is when the call in progress began; zero while idle.
	busySince time.Time
}

// point is a sample plus the per-second rates since the point before it.
type point struct {
	sample
	eventRate    [evKinds]float64
	queueInRate  float64
	queueOutRate float64
	listenerRate map[string]float64
}

// history keeps the last historyPoints points of one informer, at least
// historySpacing apart, for rates, sparklines and stall trends. It is owned
// by the root model and only touched from Update, so it needs no lock.
type history struct {
	points []point // oldest first
	// taken is the newest snapshot's time, a point or not: the look a
	// listener's progress is measured back from (lastLook).
	taken time.Time
}

func sampleOf(s *source.Informer) sample {
	r := s.Reflector
	out := sample{
		t:        s.Taken,
		events:   [evKinds]uint64{r.WatchAdded, r.WatchModified, r.WatchDeleted, r.ListedItems},
		queueIn:  s.Queue.Added.Total(),
		queueOut: s.Queue.Popped.Total(),
	}
	out.listeners = make(map[string]listenerSample, len(s.Listeners))
	for _, l := range s.Listeners {
		ls := listenerSample{pending: l.Pending, delivered: l.Delivered.Total()}
		if l.InCallback != "" {
			ls.busySince = l.InCallbackSince
		}
		out.listeners[l.Name] = ls
	}
	return out
}

// observe records s when it is at least historySpacing newer than the last
// point. A clock going backwards means a new engine (a reconnect): start over.
func (h *history) observe(s *source.Informer) {
	n := len(h.points)
	h.taken = s.Taken
	if n > 0 {
		last := h.points[n-1].t
		if s.Taken.Before(last) {
			h.points = h.points[:0]
			n = 0
		} else if s.Taken.Sub(last) < historySpacing {
			return
		}
	}
	p := point{sample: sampleOf(s)}
	if n > 0 {
		prev := &h.points[n-1]
		dt := p.t.Sub(prev.t).Seconds()
		for i := range p.events {
			p.eventRate[i] = perSecond(prev.events[i], p.events[i], dt)
		}
		p.queueInRate = perSecond(prev.queueIn, p.queueIn, dt)
		p.queueOutRate = perSecond(prev.queueOut, p.queueOut, dt)
		p.listenerRate = make(map[string]float64, len(p.listeners))
		for name, l := range p.listeners {
			if old, ok := prev.listeners[name]; ok {
				p.listenerRate[name] = perSecond(old.delivered, l.delivered, dt)
			}
		}
	}
	if n == historyPoints {
		copy(h.points, h.points[1:])
		h.points = h.points[:n-1]
	}
	h.points = append(h.points, p)
}

// perSecond is the rate between two counter readings; a counter that went
// down was reset, which is not a negative rate.
func perSecond(old, cur uint64, dt float64) float64 {
	if cur < old || dt <= 0 {
		return 0
	}
	return float64(cur-old) / dt
}

// latest returns the newest point with rates, or a zero point when fewer
// than two samples exist.
func (h *history) latest() *point {
	if h == nil || len(h.points) < 2 {
		return &point{}
	}
	return &h.points[len(h.points)-1]
}

// series returns f over every point that has rates, oldest first.
func (h *history) series(f func(*point) float64) []float64 {
	if h == nil || len(h.points) < 2 {
		return nil
	}
	out := make([]float64, 0, len(h.points)-1)
	for i := 1; i < len(h.points); i++ {
		out = append(out, f(&h.points[i]))
	}
	return out
}

// pending returns one listener's backlog over the kept points.
func (h *history) pending(listener string) []float64 {
	if h == nil {
		return nil
	}
	out := make([]float64, 0, len(h.points))
	for i := range h.points {
		if l, ok := h.points[i].listeners[listener]; ok {
			out = append(out, float64(l.pending))
		}
	}
	return out
}

// risingPoints is how many consecutive increases make a backlog "rising".
const risingPoints = 3

// rising reports a backlog that grew at each of the last risingPoints
// points: a handler that is slower than its input, even if it is not stuck.
func (h *history) rising(listener string) bool {
	p := h.pending(listener)
	if len(p) < risingPoints+1 {
		return false
	}
	p = p[len(p)-risingPoints-1:]
	for i := 1; i < len(p); i++ {
		if p[i] <= p[i-1] {
			return false
		}
	}
	return true
}

// lastLook is the listener as the newest point at least historySpacing
// before the newest snapshot saw it: a second or two back, never the
// snapshot being judged (which the newest point may be). ok is false
// while the history is younger than that, or the listener newer.
func (h *history) lastLook(listener string) (l listenerSample, ok bool) {
	if h == nil {
		return l, false
	}
	for i := len(h.points) - 1; i >= 0; i-- {
		if h.taken.Sub(h.points[i].t) >= historySpacing {
			l, ok = h.points[i].listeners[listener]
			return l, ok
		}
	}
	return l, false
}

// actedSince reports that l returned from a callback or delivered
// anything since the last look: the handler is running, whatever its
// backlog did. Delivered counts returns; a call that ended or was
// followed by another is one too, should a source count late.
func (h *history) actedSince(l *source.Listener) bool {
	look, ok := h.lastLook(l.Name)
	if !ok {
		return false
	}
	if l.Delivered.Total() > look.delivered {
		return true
	}
	return !look.busySince.IsZero() && (l.InCallback == "" || !l.InCallbackSince.Equal(look.busySince))
}

// fellSince reports that pending, the backlog now, is below the newest
// point's.
func (h *history) fellSince(listener string, pending int) bool {
	p := h.pending(listener)
	return len(p) > 0 && float64(pending) < p[len(p)-1]
}

var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last w values scaled to their maximum, right-aligned
// so the newest value is always in the same place. Zero is the lowest block
// and any non-zero value is at least one step up, so activity never hides.
func sparkline(vals []float64, w int) string { return spark(vals, w, 0) }

// spark is sparkline on a given scale (hi <= 0: the values' own maximum),
// so several series can be compared.
func spark(vals []float64, w int, hi float64) string {
	if w <= 0 {
		return ""
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	if hi <= 0 {
		hi = maxOf(vals)
	}
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", w-len(vals)))
	top := len(sparkBlocks) - 1
	for _, v := range vals {
		i := 0
		if v > 0 && hi > 0 {
			i = min(max(int(math.Ceil(v/hi*float64(top))), 1), top)
		}
		b.WriteRune(sparkBlocks[i])
	}
	return b.String()
}

// sparkRows is a sparkline rows cells tall, top row first, on the scale hi:
// eight steps per row. A zero shows as the bottom block so the baseline of
// a quiet series is visible.
func sparkRows(vals []float64, w, rows int, hi float64) []string {
	if rows <= 1 {
		return []string{spark(vals, w, hi)}
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	if hi <= 0 {
		hi = maxOf(vals)
	}
	out := make([]string, rows)
	steps := rows * 8
	for r := 0; r < rows; r++ {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", w-len(vals)))
		floor := (rows - 1 - r) * 8
		for _, v := range vals {
			lvl := 0
			if v > 0 && hi > 0 {
				lvl = max(int(math.Ceil(v/hi*float64(steps))), 1)
			}
			switch f := min(lvl-floor, 8); {
			case f > 0:
				b.WriteRune(sparkBlocks[f-1])
			case floor == 0:
				b.WriteRune(sparkBlocks[0])
			default:
				b.WriteByte(' ')
			}
		}
		out[r] = b.String()
	}
	return out
}

func maxOf(vals []float64) float64 {
	hi := 0.0
	for _, v := range vals {
		hi = max(hi, v)
	}
	return hi
}

// queueHistoryPoints is how many samples a workqueue keeps: five seconds
// at historySpacing, enough for an add rate and "the depth grew lately".
const queueHistoryPoints = 6

// queueSample is one reading of a workqueue's depth and add counter.
type queueSample struct {
	t     time.Time
	depth int64
	adds  uint64
}

// queueHistory is the last few samples of one controller workqueue, at
// least historySpacing apart, like history for an informer. Owned by the
// root model and touched only from Update.
type queueHistory struct {
	samples []queueSample // oldest first
	addRate float64       // adds per second between the last two samples
}

// observe records q as of t when t is at least historySpacing after the
// last sample; a clock going backwards (a new source) starts over.
func (h *queueHistory) observe(t time.Time, q *source.Workqueue) {
	n := len(h.samples)
	if n > 0 {
		last := h.samples[n-1]
		if t.Before(last.t) {
			h.samples, h.addRate, n = h.samples[:0], 0, 0
		} else if t.Sub(last.t) < historySpacing {
			return
		}
	}
	s := queueSample{t: t, depth: q.Depth, adds: q.Adds}
	if n > 0 {
		last := h.samples[n-1]
		h.addRate = perSecond(last.adds, s.adds, s.t.Sub(last.t).Seconds())
	}
	if n == queueHistoryPoints {
		copy(h.samples, h.samples[1:])
		h.samples = h.samples[:n-1]
	}
	h.samples = append(h.samples, s)
}

// grew reports a depth now above the oldest kept sample's: keys arriving
// faster than the workers take them over the last few seconds.
func (h *queueHistory) grew(depth int64) bool {
	return h != nil && len(h.samples) > 1 && depth > h.samples[0].depth
}
