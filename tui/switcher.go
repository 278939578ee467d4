package tui

import (
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"
)

// switcher is the ":" informer picker: a fuzzy-filtered list of the
// informers, best match first, like k9s's command prompt.
type switcher struct {
	c       *common
	input   textinput.Model
	items   []switchItem // informers in source order, as they were on opening
	targets []string     // what the filter matches: name and resource
	matches []int        // indexes into names, best first
	cursor  int
}

// switchItem is what the picker shows of one informer.
type switchItem struct {
	name, resource, kind string
	synced               bool
	why                  string // why it has not synced, if the source says
}

func newSwitcher(c *common) *switcher {
	in := textinput.New()
	in.Prompt = ":"
	in.Placeholder = "informer or resource"
	in.SetVirtualCursor(true)
	st := in.Styles()
	st.Cursor.Blink = false
	in.SetStyles(st)
	in.Focus()
	s := &switcher{c: c, input: in}
	for _, snap := range c.data.snaps {
		s.items = append(s.items, switchItem{snap.Name, snap.Resource, snap.QueueKind.String(), snap.Synced, c.data.reasons[snap.Name]})
		s.targets = append(s.targets, snap.Name+" "+snap.Resource)
	}
	s.filter()
	// Start on the informer being shown, so enter alone changes nothing.
	for i, m := range s.matches {
		if s.items[m].name == c.data.current {
			s.cursor = i
		}
	}
	return s
}

func (s *switcher) filter() {
	q := strings.TrimSpace(s.input.Value())
	s.matches = s.matches[:0]
	if q == "" {
		for i := range s.items {
			s.matches = append(s.matches, i)
		}
	} else {
		for _, m := range fuzzy.Find(q, s.targets) {
			s.matches = append(s.matches, m.Index)
		}
	}
	s.cursor = min(s.cursor, max(len(s.matches)-1, 0))
}

// update handles one key; done is true when the picker should close, with
// chosen set to the informer picked (empty when cancelled).
func (s *switcher) update(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool, chosen string) {
	k := s.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, true, ""
	case key.Matches(msg, k.Open):
		if len(s.matches) == 0 {
			return nil, true, ""
		}
		return nil, true, s.items[s.matches[s.cursor]].name
	case key.Matches(msg, namedOnly(k.Up)), msg.String() == "ctrl+p":
		s.cursor = max(s.cursor-1, 0)
		return nil, false, ""
	case key.Matches(msg, namedOnly(k.Down)), msg.String() == "ctrl+n":
		s.cursor = min(s.cursor+1, max(len(s.matches)-1, 0))
		return nil, false, ""
	}
	before := s.input.Value()
	s.input, cmd = s.input.Update(msg)
	if s.input.Value() != before {
		s.cursor = 0
		s.filter()
	}
	return cmd, false, ""
}

// namedOnly keeps the keys of b that cannot be typed as text (arrows,
// ctrl+…), so a list under a text input still moves with them while j and k
// go into the input.
func namedOnly(b key.Binding) key.Binding {
	var keys []string
	for _, k := range b.Keys() {
		if utf8.RuneCountInString(k) > 1 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return key.NewBinding(key.WithDisabled())
	}
	return key.NewBinding(key.WithKeys(keys...))
}

// render draws the picker as a panel at most w×h cells.
func (s *switcher) render(w, h int) string {
	st := s.c.styles
	inner := max(min(w-4, 56), 10)
	s.input.SetWidth(inner - 2)
	lines := []string{st.bold.Render("switch informer"), s.input.View(), ""}
	rows := max(min(len(s.matches), h-2-len(lines)), 0)
	start := max(min(s.cursor-rows+1, len(s.matches)-rows), 0)
	if s.cursor < start {
		start = s.cursor
	}
	// The names get the width they need (up to half the panel); resource
	// and queue kind take the rest.
	nameW := 8
	for _, it := range s.items {
		nameW = max(nameW, width(it.name))
	}
	nameW = min(nameW, inner/2)
	for i := start; i < start+rows && i < len(s.matches); i++ {
		it := s.items[s.matches[i]]
		line := yesNo(it.synced) + " " + pad(it.name, nameW, false) + "  " + it.resource + st.dim.Render(" · ") + it.kind
		if it.why != "" {
			line += st.dim.Render(" · ") + st.warn.Render(it.why)
		}
		line = pad(line, inner, false)
		if i == s.cursor {
			line = st.selectedItem(line)
		}
		lines = append(lines, line)
	}
	if len(s.matches) == 0 {
		lines = append(lines, st.dim.Render("no informer matches"))
	}
	return st.panel.Render(fit(strings.Join(lines, "\n"), inner, len(lines)))
}
