package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// helpGroup is one titled column of the help overlay.
type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpGroups lists the keys by group; a control key appears only when the
// source and the informer shown (inf) can serve it, and the controls group
// says so when none can. The title names the source kind whose controls
// these are: "controls (demo)". The server-side key is listed when the
// source knows the API server's watch path (serverPath).
func helpGroups(k *keyMap, caps capabilities, inf *source.Informer, kind string, serverPath bool) []helpGroup {
	views := key.NewBinding(key.WithKeys("1"), key.WithHelp(viewKeysHelp(k), "go to view"))
	inView := []key.Binding{k.Indexes, k.YAML, k.Describe, k.TypeFilter, k.AllInformers, k.Compare,
		k.SortName, k.SortAge, k.SortPending, k.SortLatency}
	if caps.stall != nil {
		inView = append([]key.Binding{k.Stall}, inView...)
	}
	if serverPath {
		inView = append(inView, k.ServerSide)
	}
	if caps.logs != nil {
		inView = append(inView, k.Logs)
	}
	if caps.retarget != nil {
		inView = append(inView, k.UseNamespace, k.AllNamespaces)
	}
	offered := map[*key.Binding]bool{}
	for _, g := range k.controlGroups(caps, nil) {
		for _, b := range g.keys {
			offered[b] = g.offered
		}
	}
	withheld := false
	for _, g := range k.withheld(caps, inf) {
		for _, b := range g.keys {
			offered[b], withheld = false, true
		}
	}
	// In a fixed order, most used first; stall is listed in its view.
	var controls []key.Binding
	for _, b := range []*key.Binding{&k.Verify, &k.Retry, &k.Pause, &k.Step, &k.BatchStep, &k.DropWatch, &k.Expire, &k.Resync, &k.Faster, &k.Slower} {
		if offered[b] {
			controls = append(controls, *b)
		}
	}
	title := "controls"
	if kind != "" {
		title += " (" + kind + ")"
	}
	switch {
	case len(controls) == 0 && withheld:
		title = "controls: none for " + inf.Name
	case len(controls) == 0:
		title = "controls: none on this source"
	}
	viewKeys := []key.Binding{views, k.NextView, k.PrevView, k.Switch, k.Commands, k.Notes, k.Help, k.Quit}
	if caps.fleet {
		viewKeys = append([]key.Binding{k.Fleet}, viewKeys...)
	}
	return []helpGroup{
		{"views", viewKeys},
		{"move", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Back, k.Filter}},
		{"in a view", inView},
		{title, controls},
	}
}

// helpLines is the key overlay's content for a box w cells wide: one
// column per group when wide enough, else groups share columns; then what
// "stalled" means and the narration, wrapped.
func helpLines(c *common, w int) []string {
	st := c.styles
	hm := help.New()
	hm.Styles = st.help
	groups := helpGroups(c.keys, c.caps, c.data.snap(), safe(c.src.Kind()), c.data.hasWatchPath())
	cols := make([]string, len(groups))
	for i, g := range groups {
		// A disabled binding is hidden by help; show its keys anyway, dimmed
		// by the group title saying why.
		keys := make([]key.Binding, len(g.keys))
		for j, b := range g.keys {
			keys[j] = b
			keys[j].SetEnabled(true)
		}
		cols[i] = st.accent.Render(g.title) + "\n" + hm.FullHelpView([][]key.Binding{keys})
	}
	// The widest arrangement that fits: one column per group, then fewer
	// columns sharing the groups.
	var body string
	for _, arrangement := range helpArrangements(len(groups)) {
		stacks := make([]string, len(arrangement))
		for i, groups := range arrangement {
			parts := make([]string, len(groups))
			for j, g := range groups {
				parts[j] = cols[g]
			}
			stacks[i] = strings.Join(parts, "\n\n")
		}
		body = lipgloss.JoinHorizontal(lipgloss.Top, joinGap(stacks, "   ")...)
		if lipgloss.Width(body)+4 <= w {
			break
		}
	}
	lines := strings.Split(body, "\n")
	// Sentences wrap to the key columns' width, so the box stays as
	// narrow as its keys.
	w = min(w, max(lipgloss.Width(body)+4, 60))
	lines = append(lines, "")
	stalled := "stalled: over " + humanize.Duration(c.stallAfter) + " in one callback, or a backlog rising with nothing delivered for a second"
	for _, l := range wrapText(stalled, max(w-4, 10)) {
		lines = append(lines, st.dim.Render(l))
	}
	filter := c.keys.Filter.Help().Key + " filters as k9s does: text or a regexp over every cell shown (^default/, Pending), -f fuzzy, -l app=web a label selector (Store), type:Relist key:default/web listener:slow (Events)"
	for _, l := range wrapText(filter, max(w-4, 10)) {
		lines = append(lines, st.dim.Render(l))
	}
	for _, l := range wrapText(storeKeysHelp(c), max(w-4, 10)) {
		lines = append(lines, st.dim.Render(l))
	}
	if c.caps.table != nil {
		for _, l := range wrapText(storeTableHelp, max(w-4, 10)) {
			lines = append(lines, st.dim.Render(l))
		}
	}
	if c.keys.Step.Enabled() {
		for _, l := range wrapText(stepHelp(c.keys), max(w-4, 10)) {
			lines = append(lines, st.dim.Render(l))
		}
	}
	// Keys the source has but the informer shown lacks are named with
	// their reason, so their absence above is not a mystery.
	for _, g := range c.keys.withheld(c.caps, c.data.snap()) {
		names := make([]string, len(g.keys))
		for i, b := range g.keys {
			names[i] = b.Help().Key
		}
		text := strings.Join(names, ", ") + " unavailable for " + g.on + ": " + g.why
		for _, l := range wrapText(text, max(w-4, 10)) {
			lines = append(lines, st.warn.Render(l))
		}
	}
	for i, n := range c.data.notes {
		prefix := "▸ "
		for _, l := range wrapText(n, max(w-6, 10)) {
			if i > 0 || prefix == "  " {
				prefix = "  "
			}
			lines = append(lines, st.accent.Render(prefix+l))
			prefix = "  "
		}
	}
	return lines
}

// helpArrangements are the ways to put n groups in columns, widest first.
func helpArrangements(n int) [][][]int {
	one := make([][]int, n)
	all := make([]int, n)
	for i := range one {
		one[i] = []int{i}
		all[i] = i
	}
	out := [][][]int{one}
	if n == 4 {
		// "in a view" under "views", then two columns of two groups.
		out = append(out, [][]int{{0, 2}, {1}, {3}}, [][]int{{0, 3}, {1, 2}})
	}
	return append(out, [][]int{all})
}

// stepHelp says what the two step keys do.
func stepHelp(k *keyMap) string {
	return k.Step.Help().Key + " pops one item, as client-go's Pop does; " + k.BatchStep.Help().Key +
		" pops a batch, as client-go v0.37's batched RealFIFO pop: up to 1,000 items, ending before a second item of a key already in it, " +
		"before a bookmark or another item that is never batched (popped alone when first), and at the end of the initial list; on a DeltaFIFO both pop one key"
}

// renderHelpBox draws the help in a box at most w×h cells, from line off
// on; when it does not fit, the last line says that more follows.
func renderHelpBox(c *common, w, h, off int) string {
	st := c.styles
	lines := helpLines(c, w)
	room := max(h-2, 1)
	off = min(max(off, 0), max(len(lines)-room+1, 0))
	shown := lines[off:]
	if off > 0 || len(shown) > room {
		shown = shown[:min(len(shown), room-1)]
		more := fmt.Sprintf("lines %d–%d of %d · ↑/↓ scroll", off+1, off+len(shown), len(lines))
		if off+len(shown) < len(lines) {
			more = "↓ more below · " + more
		}
		shown = append(shown, st.warn.Render(more))
	}
	width := 0
	for _, l := range lines {
		width = max(width, lipgloss.Width(l))
	}
	return st.panel.Render(fit(strings.Join(shown, "\n"), min(width, max(w-4, 1)), len(shown)))
}

// renderHelp draws the help overlay for the body area.
func (m *Model) renderHelp() string { return renderHelpBox(m.c, m.c.width, m.c.height, m.helpOff) }

// helpKey closes or scrolls the help.
func (m *Model) helpKey(msg tea.KeyPressMsg) {
	k := m.c.keys
	page := max(m.c.height-3, 1)
	switch {
	case key.Matches(msg, k.Help, k.Back):
		m.showHelp = false
	case key.Matches(msg, k.Down):
		m.helpOff++
	case key.Matches(msg, k.Up):
		m.helpOff--
	case key.Matches(msg, k.PageDown):
		m.helpOff += page
	case key.Matches(msg, k.PageUp):
		m.helpOff -= page
	case key.Matches(msg, k.Top):
		m.helpOff = 0
	case key.Matches(msg, k.Bottom):
		m.helpOff = len(helpLines(m.c, m.c.width))
	}
	m.helpOff = min(max(m.helpOff, 0), max(len(helpLines(m.c, m.c.width))-max(m.c.height-3, 1), 0))
}

func joinGap(cols []string, gap string) []string {
	out := make([]string, 0, 2*len(cols))
	for i, c := range cols {
		if i > 0 {
			out = append(out, gap)
		}
		out = append(out, c)
	}
	return out
}

// overlay draws box centred over base, both w×h cells.
func overlay(base, box string, w, h int) string {
	bw, bh := lipgloss.Size(box)
	x := max((w-bw)/2, 0)
	y := max((h-bh)/2, 0)
	return lipgloss.NewCompositor(
		lipgloss.NewLayer(base),
		lipgloss.NewLayer(box).X(x).Y(y).Z(1),
	).Render()
}
