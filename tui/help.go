package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// helpGroup is one titled column of the help overlay.
type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpGroups lists the keys by group; a control key appears only when the
// source can serve it, and the controls group says so when none can. The
// title names the source kind whose controls these are: "controls (demo)".
func helpGroups(k *keyMap, caps capabilities, kind string) []helpGroup {
	views := key.NewBinding(key.WithKeys("1"), key.WithHelp(viewKeysHelp(k), "go to view"))
	inView := []key.Binding{k.Indexes, k.TypeFilter, k.AllInformers, k.Compare}
	if caps.stall != nil {
		inView = append([]key.Binding{k.Stall}, inView...)
	}
	offered := map[*key.Binding]bool{}
	for _, g := range k.controlGroups(caps) {
		for _, b := range g.keys {
			offered[b] = g.offered
		}
	}
	// In a fixed order, most used first; stall is listed in its view.
	var controls []key.Binding
	for _, b := range []*key.Binding{&k.Pause, &k.Step, &k.DropWatch, &k.Expire, &k.Resync, &k.Faster, &k.Slower} {
		if offered[b] {
			controls = append(controls, *b)
		}
	}
	title := "controls"
	if kind != "" {
		title += " (" + kind + ")"
	}
	if len(controls) == 0 {
		title = "controls: none on this source"
	}
	return []helpGroup{
		{"views", []key.Binding{views, k.NextView, k.PrevView, k.Switch, k.Help, k.Quit}},
		{"move", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Back, k.Filter}},
		{"in a view", inView},
		{title, controls},
	}
}

// renderHelp draws the key overlay for a w×h body: one column per group
// when wide enough, else groups share columns. The explanatory lines below
// are dropped first when the height is short.
func renderHelp(c *common, w, h int) string {
	st := c.styles
	hm := help.New()
	hm.Styles = st.help
	groups := helpGroups(c.keys, c.caps, c.src.Kind())
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
	// The widest arrangement that fits: four columns, then "in a view"
	// under "views", then two columns of two groups each.
	var body string
	for _, arrangement := range [][][]int{{{0}, {1}, {2}, {3}}, {{0, 2}, {1}, {3}}, {{0, 3}, {1, 2}}} {
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
	extra := []string{"", st.dim.Render("stalled: over " + humanDuration(c.stallAfter) + " in one callback, or a backlog rising")}
	for _, n := range c.data.notes {
		extra = append(extra, st.accent.Render("▸ "+n))
	}
	room := h - 2 - lipgloss.Height(body)
	if room < len(extra) {
		extra = extra[:max(room, 0)]
	}
	if len(extra) > 1 { // not the blank separator alone
		body += "\n" + strings.Join(extra, "\n")
	}
	return st.panel.Render(fit(body, max(w-4, 1), min(lipgloss.Height(body), max(h-2, 1))))
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
