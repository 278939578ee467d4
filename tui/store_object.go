package tui

import (
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
)

// objectPane shows one cached object: its index entries, then its YAML in
// a scrollable viewport. The object is read by a command (loadCmd) and
// arrives as an objectMsg; nothing here calls the source while drawing.
type objectPane struct {
	key   string
	vp    viewport.Model
	obj   source.Object
	found bool // an answer arrived and the key was cached
}

// objectMsg is one read of an object for the open pane.
type objectMsg struct {
	informer string
	key      string
	obj      source.Object
	found    bool
	noStore  bool // the source serves no cache for this informer
}

func newObjectPane(c *common, key string) *objectPane {
	vp := viewport.New()
	k := c.keys
	vp.KeyMap = viewport.KeyMap{
		Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown,
	}
	p := &objectPane{key: key, vp: vp}
	p.vp.SetContentLines([]string{c.styles.dim.Render("reading " + key + "…")})
	return p
}

// loadCmd reads the object off the UI goroutine.
func (p *objectPane) loadCmd(c *common) tea.Cmd {
	informer, key := c.data.current, p.key
	sr := c.src.Store(informer)
	return func() tea.Msg {
		if sr == nil {
			return objectMsg{informer: informer, key: key, noStore: true}
		}
		obj, ok := sr.Object(key)
		return objectMsg{informer: informer, key: key, obj: safeObject(obj), found: ok}
	}
}

// apply shows a read; the scroll position survives a refresh.
func (p *objectPane) apply(c *common, msg objectMsg) {
	st := c.styles
	p.found, p.obj = msg.found, msg.obj
	var lines []string
	switch {
	case msg.noStore:
		lines = []string{"this source gives no access to the cache"}
	case !msg.found:
		lines = []string{st.warn.Render("not in the cache any more (deleted since you opened it)")}
	default:
		lines = append(lines, indexEntryLines(c, msg.obj.IndexEntries)...)
		lines = append(lines, st.dim.Render(strings.Repeat("─", 20)))
		lines = append(lines, strings.Split(strings.TrimRight(msg.obj.YAML, "\n"), "\n")...)
	}
	y := p.vp.YOffset()
	p.vp.SetContentLines(lines)
	p.vp.SetYOffset(y)
}

func indexEntryLines(c *common, entries map[string][]string) []string {
	st := c.styles
	if len(entries) == 0 {
		return []string{st.dim.Render("index entries: none")}
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []string{st.dim.Render("index entries:")}
	for _, n := range names {
		out = append(out, "  "+st.bold.Render(n)+" = "+strings.Join(entries[n], ", "))
	}
	return out
}

// describe is " · Secret · RV 9100" for the title line.
func (p *objectPane) describe() string {
	if !p.found {
		return ""
	}
	out := ""
	if p.obj.Kind != "" {
		out += " · " + p.obj.Kind
	}
	if p.obj.ResourceVersion != "" {
		out += " · RV " + p.obj.ResourceVersion
	}
	return out
}

func (p *objectPane) setSize(w, h int) {
	p.vp.SetWidth(w)
	p.vp.SetHeight(h)
}

func (p *objectPane) update(msg tea.Msg, c *common) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, c.keys.Top):
			p.vp.GotoTop()
			return nil
		case key.Matches(km, c.keys.Bottom):
			p.vp.GotoBottom()
			return nil
		}
	}
	var cmd tea.Cmd
	p.vp, cmd = p.vp.Update(msg)
	return cmd
}
