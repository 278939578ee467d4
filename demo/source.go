package demo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/tui"
)

var (
	_ tui.Source      = (*Demo)(nil)
	_ tui.Controls    = (*Demo)(nil)
	_ tui.QueueReader = (*Demo)(nil)
)

// Kind is "demo".
func (d *Demo) Kind() string { return "demo" }

// Title is "demo · <scenario>".
func (d *Demo) Title() string { return "demo · " + d.cfg.Scenario }

// Notes returns what the scenario wants the viewer to watch right now,
// followed by live status lines; the first line is the headline.
func (d *Demo) Notes() []string {
	d.mu.Lock()
	notes := append([]string(nil), d.notes...)
	d.mu.Unlock()
	if d.plan.status != nil && d.started.Load() {
		notes = append(notes, d.plan.status(d)...)
	}
	return notes
}

// Snapshots returns one snapshot per informer, in display order.
func (d *Demo) Snapshots() []engine.Snapshot {
	out := make([]engine.Snapshot, len(d.infs))
	for i, e := range d.infs {
		out[i] = e.inf.Snapshot()
	}
	return out
}

// Events reads the event ring all the demo's informers share.
func (d *Demo) Events(from uint64, max int) ([]engine.Event, uint64, uint64) {
	return d.events.Since(from, max)
}

// Store returns read access to one informer's cache, nil if unknown.
func (d *Demo) Store(informer string) tui.StoreReader {
	e := d.entry(informer)
	if e == nil {
		return nil
	}
	return e.inf.StoreView()
}

// QueueDeltas returns what is queued for key in the named informer, so the
// Queue view can show each delta; nil when nothing is.
func (d *Demo) QueueDeltas(informer, key string) cache.Deltas {
	e := d.entry(informer)
	if e == nil {
		return nil
	}
	return e.inf.QueueDeltas(key)
}

// Controls returns the demo itself: every control works on a demo.
func (d *Demo) Controls() tui.Controls { return d }
