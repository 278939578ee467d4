package tui

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
)

const (
	// logLines is the most log lines the pane keeps; older ones go.
	logLines = 10000
	// logTail is how far back a stream starts, as kubectl logs --tail.
	logTail = 500
	// logChunk is the most bytes one read takes off the stream.
	logChunk = 32 << 10
	// logLineMax cuts a line longer than this (a minified blob), so one
	// line never costs unbounded memory.
	logLineMax = 4096
	// containersTimeout bounds reading the pod's containers.
	containersTimeout = 30 * time.Second
)

// logsPane follows one container's log through the API server. The
// stream is read by one command at a time (readLogCmd), each read's
// bytes delivered as a logChunkMsg and the next read started when it is
// applied; closing the pane cancels the stream's context, which ends the
// read in flight, and that command closes the stream.
type logsPane struct {
	*textPane
	namespace, pod string
	containers     []string
	picking        bool // choosing among several containers
	cursor         int
	container      string
	seq            uint64 // numbers the streams, so a late chunk of a closed one is dropped
	cancel         context.CancelFunc
	partial        string // bytes after the last newline, awaiting the rest of their line
}

// containersMsg answers the ask for a pod's containers.
type containersMsg struct {
	namespace, pod string
	names          []string
	err            error
}

// logChunkMsg is one read off a stream: bytes, and the error that ended
// it (io.EOF when the container's log ended and is not followed).
type logChunkMsg struct {
	seq  uint64
	rc   io.ReadCloser
	data []byte
	err  error
}

// logsOf opens the logs pane on the pod key (namespace/name): it asks
// for its containers, then follows the only one or lets the user pick.
func (v *storeView) logsOf(k string) tea.Cmd {
	ls := v.c.caps.logs
	ns, pod, _ := strings.Cut(k, "/")
	p := &logsPane{textPane: newTextPane(v.c, "logs "+kubectlObject(v.c, k), "reading the containers…"), namespace: ns, pod: pod}
	v.logs, v.mode = p, storeLogs
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), containersTimeout)
		defer cancel()
		names, err := ls.Containers(ctx, ns, pod)
		return containersMsg{namespace: ns, pod: pod, names: safeAll(names), err: err}
	}
}

func (v *storeView) applyContainers(msg containersMsg) tea.Cmd {
	p := v.logs
	if v.mode != storeLogs || p == nil || p.namespace != msg.namespace || p.pod != msg.pod {
		return nil
	}
	if msg.err != nil {
		p.note = ""
		p.setText(v.c.styles.bad.Render(safe(msg.err.Error())))
		return nil
	}
	p.containers = msg.names
	if len(msg.names) == 1 {
		return v.follow(msg.names[0])
	}
	p.picking, p.note = true, "pick a container · enter follows its log · esc back"
	return nil
}

// follow starts streaming container's log, the last logTail lines first.
func (v *storeView) follow(container string) tea.Cmd {
	p := v.logs
	p.stop()
	p.picking, p.container, p.partial = false, container, ""
	p.note = "container " + container + " · following · G end · esc back"
	p.lines, p.follow = nil, true
	p.setText(v.c.styles.dim.Render("opening the log…"))
	p.lines = nil
	p.seq++
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	ls, seq, ns, pod := v.c.caps.logs, p.seq, p.namespace, p.pod
	return func() tea.Msg {
		rc, err := ls.Logs(ctx, ns, pod, source.LogOptions{Container: container, Follow: true, TailLines: logTail})
		if err != nil {
			return logChunkMsg{seq: seq, err: err}
		}
		return readLog(seq, rc)
	}
}

// readLog reads what the stream has now, at most logChunk bytes; it
// closes the stream when it ends.
func readLog(seq uint64, rc io.ReadCloser) logChunkMsg {
	buf := make([]byte, logChunk)
	n, err := rc.Read(buf)
	if err != nil {
		_ = rc.Close()
	}
	return logChunkMsg{seq: seq, rc: rc, data: buf[:n], err: err}
}

func (v *storeView) applyLogChunk(msg logChunkMsg) tea.Cmd {
	p := v.logs
	if v.mode != storeLogs || p == nil || msg.seq != p.seq {
		if msg.err == nil && msg.rc != nil {
			_ = msg.rc.Close() // a stream the pane no longer shows
		}
		return nil
	}
	text := p.partial + string(msg.data)
	lines := strings.Split(text, "\n")
	p.partial = lines[len(lines)-1]
	lines = lines[:len(lines)-1]
	if len(p.partial) > logLineMax {
		lines, p.partial = append(lines, p.partial), ""
	}
	for i, l := range lines {
		if len(l) > logLineMax {
			l = l[:logLineMax] + " …"
		}
		lines[i] = termsafeLine(l)
	}
	if msg.err != nil && p.partial != "" {
		lines, p.partial = append(lines, termsafeLine(p.partial)), ""
	}
	if len(lines) > 0 {
		p.appendLines(lines, logLines)
	}
	switch {
	case msg.err == nil:
		rc, seq := msg.rc, msg.seq
		return func() tea.Msg { return readLog(seq, rc) }
	case errors.Is(msg.err, io.EOF):
		p.note = "container " + p.container + " · the log ended (the container stopped) · esc back"
	case errors.Is(msg.err, context.Canceled):
	default:
		p.note = "container " + p.container + " · the stream ended"
		p.appendLines([]string{v.c.styles.bad.Render(safe(msg.err.Error()))}, logLines)
	}
	p.cancel = nil
	return nil
}

// termsafeLine is one log line as it can be printed: a container writes
// what it likes, escape sequences included.
func termsafeLine(l string) string { return safe(strings.TrimRight(l, "\r")) }

// stop ends the stream shown, if any.
func (p *logsPane) stop() {
	if p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
}

func (v *storeView) updateLogs(km tea.KeyPressMsg) tea.Cmd {
	p := v.logs
	k := v.c.keys
	if key.Matches(km, k.Back) {
		p.stop()
		p.seq++
		v.logs, v.mode = nil, storeList
		return nil
	}
	if p.picking {
		switch {
		case key.Matches(km, k.Up):
			p.cursor = max(p.cursor-1, 0)
		case key.Matches(km, k.Down):
			p.cursor = min(p.cursor+1, len(p.containers)-1)
		case key.Matches(km, k.Open):
			return v.follow(p.containers[p.cursor])
		}
		return nil
	}
	return p.update(km, v.c)
}

func (v *storeView) renderLogs() string {
	p := v.logs
	if !p.picking {
		return p.render(v.c)
	}
	st := v.c.styles
	lines := []string{st.bold.Render(p.title) + st.dim.Render(" · "+p.note)}
	for i, name := range p.containers {
		line := "  " + name
		if i == p.cursor {
			line = st.cursorRow("▸ "+name, v.c.width)
		}
		lines = append(lines, line)
	}
	return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
}
