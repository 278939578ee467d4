package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"
)

// switcher is the ":" prompt, like k9s's: a fuzzy-filtered list of the
// informers and the commands (views, help, narration, quit), best match
// first. A command's name or alias typed whole runs it (":q", ":events");
// tab completes the input to the best match.
type switcher struct {
	c       *common
	input   textinput.Model
	items   []switchItem // informers in source order, as they were on opening
	targets []string     // what the filter matches: name and resource
	matches []int        // indexes into names, best first
	cursor  int
	// moved is set once the user moves the cursor after typing: enter
	// then picks the highlighted item rather than reading what was typed.
	moved bool
}

// switchItem is what the picker shows of one informer or command.
type switchItem struct {
	name, resource, kind string
	state                informerState
	why                  string // why it has not synced, if the source says
	// stalled names its stalled handlers ("main.(*Controller) (+1 more)"),
	// "" when none is.
	stalled string
	cmd     *command
}

// command is what ":" can run besides switching informer.
type command struct {
	name    string
	aliases []string
	what    string
	run     func(m *Model) tea.Cmd
}

// commands are the prompt's commands, in the order they are listed.
func commands() []*command {
	goTo := func(id viewID) func(m *Model) tea.Cmd { return func(m *Model) tea.Cmd { return m.activate(id) } }
	return []*command{
		{name: "pipeline", aliases: []string{"pipe", "1"}, what: "view 1: the informer's stages", run: goTo(viewPipeline)},
		{name: "queue", aliases: []string{"fifo", "2"}, what: "view 2: what waits in the queue", run: goTo(viewQueue)},
		{name: "listeners", aliases: []string{"lis", "lstn", "handlers", "3"}, what: "view 3: the event handlers", run: goTo(viewListeners)},
		{name: "store", aliases: []string{"cache", "indexer", "4"}, what: "view 4: the cached objects", run: goTo(viewStore)},
		{name: "events", aliases: []string{"ev", "log", "5"}, what: "view 5: the instrumentation log", run: goTo(viewEvents)},
		{name: "fleet", aliases: []string{"processes"}, what: "a fleet's processes, worst first (back from an attached one)", run: (*Model).goHome},
		{name: "narration", aliases: []string{"notes", "history"}, what: "what the scenario said so far",
			run: func(m *Model) tea.Cmd { m.notes = newNoteHistory(); return nil }},
		{name: "help", aliases: []string{"?", "keys"}, what: "every key",
			run: func(m *Model) tea.Cmd { m.showHelp, m.helpOff = true, 0; return nil }},
		{name: "quit", aliases: []string{"q", "q!", "exit"}, what: "leave informtop", run: func(*Model) tea.Cmd { return tea.Quit }},
	}
}

func newSwitcher(c *common) *switcher {
	in := textinput.New()
	in.Prompt = ":"
	in.Placeholder = "informer, view or command (tab completes)"
	if c.caps.retarget != nil {
		in.Placeholder = "informer, view, command, svc, ns NAME, ctx NAME"
	}
	in.SetVirtualCursor(true)
	st := in.Styles()
	st.Cursor.Blink = false
	in.SetStyles(st)
	in.Focus()
	s := &switcher{c: c, input: in}
	stalls := stalledHandlers(c)
	for _, snap := range c.data.snaps {
		why := c.data.reasons[snap.Name]
		if why == "" {
			why = silenceSentence(&snap, false)
		}
		s.items = append(s.items, switchItem{name: snap.Name, resource: snap.Resource, kind: queueKindText(c, &snap), state: stateOf(&snap, c.data.reasons[snap.Name]), why: why,
			stalled: stalledOn(stalls, snap.Name)})
		s.targets = append(s.targets, snap.Name+" "+snap.Resource)
	}
	for _, cmd := range commands() {
		if cmd.name == "fleet" && !c.caps.fleet && !c.fromFleet {
			continue // only a fleet, or a process opened from one, has one
		}
		s.items = append(s.items, switchItem{name: cmd.name, kind: cmd.what, cmd: cmd})
		s.targets = append(s.targets, cmd.name)
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

// exact finds the command or informer named q (a command's alias too).
func (s *switcher) exact(q string) *switchItem {
	for i := range s.items {
		it := &s.items[i]
		if it.name == q {
			return it
		}
		if it.cmd != nil {
			for _, a := range it.cmd.aliases {
				if a == q {
					return it
				}
			}
		}
	}
	return nil
}

// uniquePrefix finds the one item whose name or alias starts with q; nil
// when none or several do.
func (s *switcher) uniquePrefix(q string) *switchItem {
	var found *switchItem
	for i := range s.items {
		it := &s.items[i]
		names := []string{it.name}
		if it.cmd != nil {
			names = append(names, it.cmd.aliases...)
		}
		for _, n := range names {
			if strings.HasPrefix(n, q) {
				if found != nil && found != it {
					return nil
				}
				found = it
			}
		}
	}
	return found
}

// update handles one key; done is true when the prompt should close, with
// chosen set to what was picked, or typed to the line when it names
// nothing whole and no item was picked (both empty when cancelled).
func (s *switcher) update(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool, chosen *switchItem, typed string) {
	k := s.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, true, nil, ""
	case key.Matches(msg, k.Open):
		q := strings.TrimSpace(s.input.Value())
		if it := s.exact(q); it != nil {
			return nil, true, it, ""
		}
		// What was typed is read as typed (":ns shop", ":svc"), unless the
		// user picked a row: k9s runs what you type, not its best guess.
		if q != "" && !s.moved {
			return nil, true, nil, q
		}
		if len(s.matches) == 0 {
			return nil, true, nil, ""
		}
		return nil, true, &s.items[s.matches[s.cursor]], ""
	case msg.String() == "tab":
		// Complete to the highlighted match, as a shell would.
		if len(s.matches) > 0 {
			s.input.SetValue(s.items[s.matches[s.cursor]].name)
			s.input.CursorEnd()
			s.filter()
		}
		return nil, false, nil, ""
	case key.Matches(msg, namedOnly(k.Up)), msg.String() == "ctrl+p":
		s.cursor, s.moved = max(s.cursor-1, 0), true
		return nil, false, nil, ""
	case key.Matches(msg, namedOnly(k.Down)), msg.String() == "ctrl+n":
		s.cursor, s.moved = min(s.cursor+1, max(len(s.matches)-1, 0)), true
		return nil, false, nil, ""
	}
	before := s.input.Value()
	s.input, cmd = s.input.Update(msg)
	if s.input.Value() != before {
		s.cursor, s.moved = 0, false
		s.filter()
	}
	return cmd, false, nil, ""
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
	// The names get the width they need (up to half the panel); resource
	// and queue kind take the rest.
	nameW := 8
	for _, it := range s.items {
		if it.cmd == nil {
			nameW = max(nameW, width(it.name))
		}
	}
	inner := max(min(w-4, 56), 10)
	for _, m := range s.matches {
		if it := s.items[m]; it.stalled != "" && 4+min(nameW, inner/2)+width("stalled: "+it.stalled) > inner {
			// Wider where there is room, so the stalled handler's name
			// shows beside a long informer name.
			inner = max(min(w-4, 80), inner)
		}
	}
	nameW = min(nameW, inner/2)
	s.input.SetWidth(inner - 2)
	title := st.bold.Render("informers and commands") + st.dim.Render(" · enter goes")
	if cur := s.c.data.snap(); cur != nil {
		title = st.bold.Render(scopeText(s.c, cur)) + st.dim.Render(" · informers and commands · enter goes")
	}
	lines := []string{truncate(title, inner), s.input.View(), ""}
	rows := max(min(len(s.matches), h-2-len(lines)), 0)
	start := max(min(s.cursor-rows+1, len(s.matches)-rows), 0)
	if s.cursor < start {
		start = s.cursor
	}
	for i := start; i < start+rows && i < len(s.matches); i++ {
		it := s.items[s.matches[i]]
		what := joinNonEmpty(st.dim.Render(" · "), it.resource, it.kind) // a fleet knows no queue kind
		line := it.state.mark + " " + pad(it.name, nameW, false) + "  " + what
		if it.stalled != "" {
			// A synced informer whose handler hangs is not a ✓ to pick
			// past, and the handler comes before what may be cut.
			line = st.warn.Render("⚠") + " " + pad(it.name, nameW, false) + "  " + st.warn.Render("stalled: "+it.stalled) +
				st.dim.Render(" · ") + what
		}
		if it.state.level != stateOK {
			line += st.dim.Render(" · ") + it.state.styled(st, it.state.text)
		}
		if it.cmd != nil {
			line = ": " + pad(it.name, nameW, false) + "  " + st.dim.Render(it.cmd.what)
		}
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
		lines = append(lines, st.dim.Render("no informer or command matches; enter closes"))
	}
	return st.panel.Render(fit(strings.Join(lines, "\n"), inner, len(lines)))
}

// stalledOn names the first of stalls on informer, and how many more
// there are: "main.(*Controller) (+1 more)"; "" when none is.
func stalledOn(stalls []stalledHandler, informer string) string {
	out, n := "", 0
	for _, h := range stalls {
		if h.informer != informer {
			continue
		}
		if n == 0 {
			out = h.name
		}
		n++
	}
	if n > 1 {
		out += fmt.Sprintf(" (+%d more)", n-1)
	}
	return out
}
