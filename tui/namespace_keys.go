package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
)

// goToNamespace moves to ask.ns as ":ns NAME" does, then, for enter on a
// namespace, watches the pods there and shows them, as k9s does.
func (m *Model) goToNamespace(ask namespaceAsk) tea.Cmd {
	move := m.useNamespace(ask.ns)
	re := m.c.caps.retarget
	if move == nil || re == nil || !ask.pods {
		return move
	}
	return func() tea.Msg {
		msg := move()
		moved, ok := msg.(retargetMsg)
		if !ok || moved.err != nil {
			return msg
		}
		ctx, cancel := context.WithTimeout(context.Background(), retargetTimeout)
		defer cancel()
		name, err := re.Watch(ctx, "pods", source.Where{})
		if err != nil {
			moved.text += "; pods cannot be shown there: " + err.Error()
			return moved
		}
		moved.informer = name
		return moved
	}
}

// closePanes ends what the Store has open over its list: a log stream
// must not outlive the dashboard that follows it.
func (m *Model) closePanes() {
	if sv, ok := m.views[viewStore].(*storeView); ok {
		sv.closePanes()
	}
}
