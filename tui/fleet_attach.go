package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
)

// attachTimeout bounds the Attach hook: making the source, not its first
// frame (the dashboard waits for that as for any source).
const attachTimeout = 30 * time.Second

// attachAskMsg is Enter on a process of the Fleet view.
type attachAskMsg struct{ p source.Process }

// attachedMsg is the Attach hook's answer: the process's agent as a
// running source and how to stop it, or why not.
type attachedMsg struct {
	p    source.Process
	src  source.Source
	stop func()
	err  error
}

// attachTo opens the agent of p, or says why it cannot.
func (m *Model) attachTo(p source.Process) tea.Cmd {
	name := p.Name()
	switch {
	case m.opts.Attach == nil:
		m.setStatus("", fmt.Errorf("%s cannot attach to a process from here", sourceName(m.c)))
		return nil
	case p.Agent == "" && !inCluster(p):
		m.setStatus("", fmt.Errorf("%s's target labels give neither its namespace and pod nor an agent address, so informtop cannot attach to it: run informtop fleet with --agent-label LABEL naming the target label that holds the agent's host:port", name))
		return nil
	}
	m.setStatus("attaching to "+name+" "+route(p)+"…", nil)
	use := m.opts.Attach
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), attachTimeout)
		defer cancel()
		src, stop, err := use(ctx, p)
		return attachedMsg{p: p, src: src, stop: stop, err: err}
	}
}

// applyAttached shows the agent's source in place of the fleet, keeping
// the fleet's dashboard (and its source, still running) to go back to.
func (m *Model) applyAttached(msg attachedMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus("", fmt.Errorf("could not attach to %s, so informtop stays on the fleet: %w", msg.p.Name(), msg.err))
		return nil
	}
	opts := m.opts
	opts.Attach = nil // one level: the agent's dashboard attaches nowhere
	next, err := New(msg.src, opts)
	if err != nil {
		if msg.stop != nil {
			msg.stop()
		}
		m.setStatus("", err)
		return nil
	}
	home := *m
	next.home, next.detach = &home, msg.stop
	next.width, next.height, next.done, next.active = m.width, m.height, m.done, viewListeners
	next.c.loc, next.c.styles.mono, next.c.fromFleet = m.c.loc, m.c.styles.mono, true
	*m = *next
	m.layout()
	m.setStatus("attached to "+msg.p.Name()+" "+route(msg.p)+": esc or :fleet goes back to the fleet", nil)
	return m.fetchCmd()
}

// inCluster reports whether p's target labels name its pod, which Enter
// reaches through the API server.
func inCluster(p source.Process) bool {
	return p.Labels["namespace"] != "" && p.Labels["pod"] != ""
}

// route says how Enter reaches p, for the status line.
func route(p source.Process) string {
	if inCluster(p) {
		return "through the API server"
	}
	return "at " + p.Agent
}

// goHome leaves an attached process for the fleet it was opened from,
// stopping the attach; the fleet's source ran all along.
func (m *Model) goHome() tea.Cmd {
	if m.home == nil {
		if len(m.views) > int(viewFleet) {
			return m.activate(viewFleet)
		}
		m.setStatus("", fmt.Errorf(":fleet lists a fleet's processes; %s is not a fleet (run informtop fleet --prometheus URL)", sourceName(m.c)))
		return nil
	}
	if m.detach != nil {
		m.detach()
	}
	if m.verifying != nil {
		m.verifying.cancel()
	}
	w, h, mono := m.width, m.height, m.c.styles.mono
	*m = *m.home
	m.width, m.height, m.c.styles.mono = w, h, mono
	m.layout()
	m.setStatus("back on the fleet", nil)
	return tea.Batch(m.views[m.active].refresh(), m.fetchCmd())
}

// nothingOpen reports that the focused view has nothing open for esc to
// close (no breadcrumb), so esc may leave an attached process.
func (m *Model) nothingOpen() bool {
	switch v := m.views[m.active].(type) {
	case *listenersView:
		return !v.detail // its sort is a crumb esc does not undo
	case crumbed:
		return len(v.crumbs()) == 0
	}
	return true
}
