package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// objectKey answers k9s' object keys where the Store view does not take
// them: y, d and l act on the object under the Store's cursor only, and
// ctrl+d never acts, since informtop changes nothing. It reports false
// for any other key.
func (m *Model) objectKey(msg tea.KeyPressMsg) bool {
	k := m.c.keys
	if !key.Matches(msg, k.YAML, k.Describe, k.Logs, k.Delete) {
		return false
	}
	obj := m.selectedObject()
	switch {
	case key.Matches(msg, k.Logs) && m.c.caps.logs != nil:
		m.setStatus("", fmt.Errorf("%s follows the log of the pod under the cursor in the Store (%s): :pods, then %s on one", msg.String(), k.Store.Help().Key, msg.String()))
	case key.Matches(msg, k.Logs):
		m.setStatus("", fmt.Errorf("logs are the kubelet's, not in an informer's cache: run kubectl logs %s", obj))
	case key.Matches(msg, k.Describe) && m.c.caps.describe != nil:
		m.setStatus("", fmt.Errorf("%s describes the object under the cursor in the Store (%s): pick an object there", msg.String(), k.Store.Help().Key))
	case key.Matches(msg, k.Describe):
		m.setStatus("", fmt.Errorf("%s describes an object as kubectl describe does, through a cluster's API server; %s has none: %s shows its YAML in the Store (%s)",
			msg.String(), sourceName(m.c), k.YAML.Help().Key, k.Store.Help().Key))
	case key.Matches(msg, k.Delete):
		m.setStatus("", fmt.Errorf("informtop never changes a cluster: to delete, run kubectl delete %s", obj))
	default:
		m.setStatus("", fmt.Errorf("%s shows an object's YAML from the cache in the Store (%s): pick an object there", msg.String(), k.Store.Help().Key))
	}
	return true
}

// selectedObject names the object under the Store's cursor as kubectl
// takes it ("pods/web-1 -n shop"), or a placeholder.
func (m *Model) selectedObject() string {
	res := "RESOURCE"
	if s := m.c.data.snap(); s != nil && s.Resource != "" {
		res = s.Resource
	}
	sv, ok := m.views[viewStore].(*storeView)
	if !ok || m.active != viewStore {
		return res + "/NAME"
	}
	sel := sv.selectedKey()
	if sel == "" {
		return res + "/NAME"
	}
	if ns, name, found := strings.Cut(sel, "/"); found {
		return res + "/" + name + " -n " + ns
	}
	return res + "/" + sel
}
