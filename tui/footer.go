package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// statusTicks is how long a status message stays: 4 s at the default
// refresh. Counting ticks instead of reading a clock keeps tests exact.
const statusTicks = 40

// status is the transient answer to an operator action, shown in the footer.
type status struct {
	text    string
	bad     bool
	expires uint64 // dataState.ticks value after which it disappears
}

// footerLine is the one-line footer: the status message if any, then as
// many key hints as fit.
func footerLine(c *common, st status, bindings []key.Binding) string {
	line := ""
	if st.text != "" && c.data.ticks <= st.expires {
		msg := st.text
		if st.bad {
			line = c.styles.bad.Render(msg)
		} else {
			line = c.styles.accent.Render(msg)
		}
		line += c.styles.dim.Render("  │ ")
	}
	h := help.New()
	h.Styles = c.styles.help
	h.ShortSeparator = " · "
	h.SetWidth(max(c.width-width(line), 0))
	return truncate(line+h.ShortHelpView(bindings), c.width)
}

// footerKeys are the focused view's keys, then the global ones.
func (m *Model) footerKeys() []key.Binding {
	k := m.c.keys
	if m.switcher != nil {
		return []key.Binding{k.Open, k.Back}
	}
	if m.showHelp || m.notes != nil {
		return []key.Binding{k.Up, k.Down, k.Back, k.Quit}
	}
	if m.views[m.active].capturing() {
		return []key.Binding{k.Open, k.Back}
	}
	var keys []key.Binding
	if m.narration != nil {
		back := k.Back
		back.SetHelp(k.Back.Help().Key, "close step")
		keys = append(keys, k.Step, k.BatchStep, back)
	}
	keys = append(keys, m.views[m.active].shortHelp()...)
	// Most useful first: the help line truncates from the right.
	views := key.NewBinding(key.WithKeys("1"), key.WithHelp(viewKeysHelp(k), "views"))
	keys = append(keys, k.Help, k.Quit, views, k.Switch)
	if len(m.c.data.notes) > 0 {
		keys = append(keys, k.Notes)
	}
	if m.c.caps.proc != nil {
		keys = append(keys, k.Pause, k.Step)
	}
	return dedupe(keys)
}

// viewKeysHelp is "1-5" for the default keys, the actual keys otherwise.
func viewKeysHelp(k *keyMap) string {
	s := ""
	for i, b := range k.viewKeys() {
		if i > 0 {
			s += ","
		}
		s += b.Help().Key
	}
	if s == "1,2,3,4,5" {
		return "1-5"
	}
	return s
}

// dedupe drops bindings whose keys an earlier binding already shows.
func dedupe(keys []key.Binding) []key.Binding {
	seen := map[string]bool{}
	out := keys[:0]
	for _, b := range keys {
		k := b.Help().Key
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, b)
	}
	return out
}
