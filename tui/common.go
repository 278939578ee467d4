package tui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
)

// common is the context the root model shares with every view: the area a
// view may draw in, the styles, the key map and the data. The root model
// owns it and changes it only inside Update; views read it in their update
// and render methods, which Bubble Tea never runs concurrently with Update.
type common struct {
	width, height int // the body area a view draws in
	styles        styles
	keys          *keyMap
	src           source.Source
	caps          capabilities // what src can do beyond showing data
	data          *dataState
	stallAfter    time.Duration  // a callback running longer than this is a stall
	loc           *time.Location // for event timestamps; UTC in tests
	// clock is the wall clock, for how long a footer message stays (the
	// snapshots' now would stop with a paused source); tests move their own.
	clock func() time.Time
	// fromFleet: the source is a process attached to from a fleet's
	// dashboard, which esc and :fleet go back to.
	fromFleet bool
	// compare asks for informers sharing a resource to be drawn side by
	// side (see comparing); on by default, flipped by the compare key.
	compare bool
}

// now is the time of the current snapshot. Views measure ages against it
// rather than the wall clock, so a paused or slow source shows consistent
// numbers and fixed snapshots render the same every time.
func (c *common) now() time.Time {
	if s := c.data.snap(); s != nil && !s.Taken.IsZero() {
		return s.Taken
	}
	return c.data.updated
}

// snap is the current informer's snapshot; a zero one before the first tick.
func (c *common) snap() *source.Informer {
	if s := c.data.snap(); s != nil {
		return s
	}
	return &source.Informer{}
}

// view is one page of the dashboard. The root model handles the global keys
// and forwards everything else to the focused view.
type view interface {
	// name is the tab label, e.g. "Queue".
	name() string
	// update handles a message the root did not consume.
	update(msg tea.Msg) tea.Cmd
	// render draws the view in exactly c.width × c.height cells.
	render() string
	// refresh is called when new data arrived and when the view gains focus.
	refresh() tea.Cmd
	// resize is called after c.width or c.height changed.
	resize()
	// capturing reports that a text input has focus, so the root must let
	// printable keys through instead of treating them as global keys.
	capturing() bool
	// shortHelp lists the view's own keys for the footer and help overlay.
	shortHelp() []key.Binding
}

// viewID indexes the views in their number-key order.
type viewID int

const (
	viewPipeline viewID = iota
	viewQueue
	viewListeners
	viewStore
	viewEvents
	numViews
)
