package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// k9sHints are what keys k9s users press do in k9s, for those informtop
// leaves unbound (or cannot serve here): each says so once per session,
// with why informtop does not, instead of doing nothing in silence.
var k9sHints = map[string]string{
	"e":      "e edits the object in k9s (kubectl edit); informtop is read-only toward clusters: y shows its YAML",
	"s":      "s opens a shell in a container in k9s (kubectl exec); informtop is read-only toward clusters and runs nothing in them",
	"a":      "a attaches to a container in k9s (kubectl attach); informtop is read-only toward clusters: l follows the log",
	"ctrl+k": "ctrl+k kills a pod in k9s; informtop is read-only toward clusters and deletes nothing",
	"x":      "x decodes a Secret's values in k9s; informtop never shows a Secret's values, whatever the key",
	"F":      "shift+f port-forwards in k9s; informtop is read-only toward clusters: kubectl port-forward does it",
	"r":      "r restarts a deployment in k9s (kubectl rollout restart); informtop is read-only toward clusters",
	"z":      "z scales a deployment in k9s (kubectl scale); informtop is read-only toward clusters",
	"t":      "t triggers a CronJob in k9s; informtop is read-only toward clusters and creates nothing",
}

// k9sHint shows the hint for msg if it is a k9s key that does nothing
// here and has not been explained yet this session; it reports whether
// it did.
func (m *Model) k9sHint(msg tea.KeyPressMsg) bool {
	k := msg.String()
	text, ok := k9sHints[k]
	if k == m.c.keys.AllNamespaces.Help().Key && m.c.caps.retarget == nil {
		text, ok = fmt.Sprintf("%s shows every namespace in k9s; %s does not watch a cluster from here", k, sourceName(m.c)), true
	}
	if !ok || m.k9sSaid[k] || m.boundHere(msg) {
		return false
	}
	if m.k9sSaid == nil {
		m.k9sSaid = map[string]bool{}
	}
	m.k9sSaid[k] = true
	m.setStatus(text, nil)
	return true
}

// boundHere says msg is informtop's own key here: a control key (one the
// source cannot serve says why itself), a global key or one of the view's.
// In the Store, where k9s users act on objects, another view's key (e
// folds the Pipeline's server side) is not one, nor a control the source
// cannot serve (s, x, r on a cluster).
func (m *Model) boundHere(msg tea.KeyPressMsg) bool {
	k := m.c.keys
	if key.Matches(msg, m.views[m.active].shortHelp()...) {
		return true
	}
	if pressedAny(msg, k.controlBindings()) {
		// In the Store, a control the source cannot serve (s stalls a
		// simulated listener) is first what k9s users mean by the key.
		return m.active != viewStore || k.whyNot(m.c.caps, m.c.data.snap(), msg) == nil
	}
	if m.active != viewStore {
		for _, a := range k.actions() {
			if pressedAny(msg, []*key.Binding{a.binding}) {
				return true
			}
		}
		return false
	}
	global := []*key.Binding{&k.Quit, &k.Help, &k.NextView, &k.PrevView, &k.Switch, &k.Commands, &k.Fleet, &k.Notes, &k.Compare}
	for _, b := range k.viewKeys() {
		global = append(global, &b)
	}
	return pressedAny(msg, global)
}
