package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/source"
)

// capabilities are what the source can do beyond showing data, read once
// from its Controls (as k9s' dao capabilities decide a view's keys). A nil
// field means the source cannot: its keys are hidden and explain why when
// pressed.
type capabilities struct {
	proc   source.Processing
	stall  source.Stalling
	faults source.Faults
	work   source.Workload
	queue  source.QueueReader
	pager  source.QueuePager
	owes   source.ListenerReader
	verify source.Verifier
	server source.ServerReader
}

func capabilitiesOf(src source.Source) capabilities {
	c := src.Controls()
	return capabilities{proc: c.Processing, stall: c.Stalling, faults: c.Faults, work: c.Workload,
		queue: c.Queue, pager: c.QueuePager, owes: c.Backlog, verify: c.Verifier, server: c.Server}
}

// controlGroup ties control keys to the capability they need and the
// sentence that explains a key doing nothing on this source.
type controlGroup struct {
	keys    []*key.Binding
	offered bool
	why     string
}

func (k *keyMap) controlGroups(c capabilities) []controlGroup {
	return []controlGroup{
		{[]*key.Binding{&k.Pause, &k.Step, &k.BatchStep, &k.Resync}, c.proc != nil,
			"pause, step, batch step and resync need informers running inside informtop; this source shows informers running elsewhere"},
		{[]*key.Binding{&k.Stall}, c.stall != nil,
			"stalling needs a listener informtop simulates (the demo's, or --listener NAME=DELAY on a cluster); this source has none"},
		{[]*key.Binding{&k.DropWatch, &k.Expire}, c.faults != nil,
			"dropping the watch and expiring history need the demo's simulated API server; informtop never changes a real one"},
		{[]*key.Binding{&k.Faster, &k.Slower}, c.work != nil,
			"the workload rate is the demo's simulated churn; this source's changes come from its cluster"},
		{[]*key.Binding{&k.Verify}, c.verify != nil,
			"verify compares a cache with a real API server's LIST at the cache's resourceVersion: it works on a cluster, and on attach started with --verify --kubeconfig …"},
	}
}

// offerControls enables exactly the control keys the source can serve.
func (k *keyMap) offerControls(c capabilities) {
	for _, g := range k.controlGroups(c) {
		for _, b := range g.keys {
			b.SetEnabled(g.offered)
		}
	}
}

// whyNot returns the sentence for a pressed control key this source
// cannot serve; "" when the key is not such a key.
func (k *keyMap) whyNot(c capabilities, msg tea.KeyPressMsg) string {
	for _, g := range k.controlGroups(c) {
		if !g.offered && pressedAny(msg, g.keys) {
			return g.why
		}
	}
	return ""
}
