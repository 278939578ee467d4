package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
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
	// retarget changes what the source watches (":svc", ":ns shop").
	retarget source.Retargeting
	table    source.TableReader
	describe source.Describer
	logs     source.LogStreamer
	// retry restarts backed-off informers and says when they retry.
	retry source.Retrier
	// fleet: the source lists controller processes (Frame.Processes), so
	// the dashboard has a Fleet view and Enter attaches to one.
	fleet bool
}

func capabilitiesOf(src source.Source) capabilities {
	c := src.Controls()
	return capabilities{proc: c.Processing, stall: c.Stalling, faults: c.Faults, work: c.Workload,
		queue: c.Queue, pager: c.QueuePager, owes: c.Backlog, verify: c.Verifier, server: c.Server, retarget: c.Retarget, table: c.Table,
		describe: c.Describe, logs: c.Logs, retry: c.Retry,
		fleet: src.Kind() == "fleet"}
}

// controlGroup ties control keys to the capability they need and the
// sentence that explains a key doing nothing. on names what the keys do
// nothing on: "" for the source, else the informer shown, which may lack
// what the source has (client-go's own informer has no steps or cuts).
type controlGroup struct {
	keys    []*key.Binding
	offered bool
	why     string
	on      string
}

// controlGroups are the source's groups, then the informer's: a key needs
// both, and the source's reason is the one a key gives when both lack.
// inf is the informer shown; nil before the first snapshot.
func (k *keyMap) controlGroups(c capabilities, inf *source.Informer) []controlGroup {
	groups := []controlGroup{
		{keys: []*key.Binding{&k.Pause, &k.Step, &k.BatchStep, &k.Resync}, offered: c.proc != nil,
			why: "pause, step, batch step and resync need informers running inside informtop; this source shows informers running elsewhere"},
		{keys: []*key.Binding{&k.Stall}, offered: c.stall != nil,
			why: "stalling needs a listener informtop simulates (the demo's, or --listener NAME=DELAY on a cluster); this source has none"},
		{keys: []*key.Binding{&k.DropWatch, &k.Expire}, offered: c.faults != nil,
			why: "dropping the watch and expiring history need the demo's simulated API server; informtop never changes a real one"},
		{keys: []*key.Binding{&k.Faster, &k.Slower}, offered: c.work != nil,
			why: "the workload rate is the demo's simulated churn; this source's changes come from its cluster"},
		{keys: []*key.Binding{&k.Retry}, offered: c.retry != nil,
			why: "retrying now restarts informers that run inside informtop against a cluster; this source's informers run elsewhere, and retry on their own"},
		{keys: []*key.Binding{&k.Verify}, offered: c.verify != nil,
			why: "verify compares a cache with a real API server's LIST at the cache's resourceVersion: it works on a cluster, and on attach started with --verify --kubeconfig …"},
	}
	if isClientGo(inf) {
		// Pause holds the whole source's processing, so it stays.
		groups = append(groups,
			controlGroup{keys: []*key.Binding{&k.Step, &k.BatchStep, &k.Resync}, why: whyClientGoQueue, on: inf.Name},
			controlGroup{keys: []*key.Binding{&k.Verify}, why: whyClientGoVerify, on: inf.Name},
		)
	}
	return groups
}

// offerControls enables exactly the control keys the source and the
// informer shown can serve. It runs again whenever the informer shown
// changes, as what a key can do depends on it.
func (k *keyMap) offerControls(c capabilities, inf *source.Informer) {
	groups := k.controlGroups(c, inf)
	for _, g := range groups {
		for _, b := range g.keys {
			b.SetEnabled(true)
		}
	}
	for _, g := range groups {
		if !g.offered {
			for _, b := range g.keys {
				b.SetEnabled(false)
			}
		}
	}
}

// whyNot returns the group that explains a pressed control key the source
// or the informer shown cannot serve; nil when the key is not such a key.
func (k *keyMap) whyNot(c capabilities, inf *source.Informer, msg tea.KeyPressMsg) *controlGroup {
	for _, g := range k.controlGroups(c, inf) {
		if !g.offered && pressedAny(msg, g.keys) {
			return &g
		}
	}
	return nil
}

// withheld are the groups the source serves but the informer shown does
// not, for the help to name with their reason.
func (k *keyMap) withheld(c capabilities, inf *source.Informer) []controlGroup {
	bySource := map[*key.Binding]bool{}
	var out []controlGroup
	for _, g := range k.controlGroups(c, inf) {
		if g.on == "" {
			for _, b := range g.keys {
				bySource[b] = g.offered
			}
			continue
		}
		var keys []*key.Binding
		for _, b := range g.keys {
			if bySource[b] {
				keys = append(keys, b)
			}
		}
		if !g.offered && len(keys) > 0 {
			g.keys = keys
			out = append(out, g)
		}
	}
	return out
}
