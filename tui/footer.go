package tui

import (
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// statusFor is how long a status message stays on screen, in wall time
// (common.clock), unless a key dismisses it sooner: however many informers
// the source has and however fast it refreshes, a message gets as long to
// be read.
const statusFor = 4 * time.Second

// status is the transient answer to an operator action, shown in the footer.
type status struct {
	text  string
	bad   bool
	until time.Time // wall time after which it disappears; zero: it stays
}

// footerStatusMax is the most rows a status message takes; a verify's
// error or a refused key's reason fits in far fewer at 80 columns.
const footerStatusMax = 4

// footerLines is the footer: the status message if any, then as many key
// hints as fit. A message too wide to share the line with its separator
// is wrapped on lines of its own above the hints, so it is read whole;
// the view gives up those rows while it shows.
func footerLines(c *common, st status, bindings []key.Binding) []string {
	h := help.New()
	h.Styles = c.styles.help
	h.ShortSeparator = " · "
	if above := footerStatusLines(c, st, c.width); above != nil {
		h.SetWidth(c.width)
		return append(above, truncate(h.ShortHelpView(bindings), c.width))
	}
	line := ""
	if shown(c, st) {
		line = statusStyle(c, st).Render(st.text) + c.styles.dim.Render("  │ ")
	}
	h.SetWidth(max(c.width-width(line), 0))
	return []string{truncate(line+h.ShortHelpView(bindings), c.width)}
}

// footerStatusLines is the status message wrapped on lines of its own
// for a w-cell footer, nil when there is none or it fits beside the
// hints' separator.
func footerStatusLines(c *common, st status, w int) []string {
	if !shown(c, st) || width(st.text)+width("  │ ") <= w {
		return nil
	}
	style := statusStyle(c, st)
	var out []string
	for i, l := range wrapText(st.text, max(w-2, 10)) {
		if i > 0 {
			l = "  " + l
		}
		out = append(out, style.Render(l))
	}
	if len(out) > footerStatusMax {
		out = out[:footerStatusMax]
		out[footerStatusMax-1] = truncate(out[footerStatusMax-1]+" …", w)
	}
	return out
}

// shown reports whether st is still on screen.
func shown(c *common, st status) bool {
	return st.text != "" && (st.until.IsZero() || !c.clock().After(st.until))
}

func statusStyle(c *common, st status) lipgloss.Style {
	if st.bad {
		return c.styles.bad
	}
	return c.styles.accent
}

// footerStatus is the status the footer shows: a running comparison's
// progress, else the last answer to an action.
func (m *Model) footerStatus() status {
	if m.verifying != nil {
		return m.verifying.status(m.c.now())
	}
	return m.status
}

// footerRows is how many rows the footer takes now.
func (m *Model) footerRows() int {
	return 1 + len(footerStatusLines(m.c, m.footerStatus(), m.width))
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
