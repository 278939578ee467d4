package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
)

// textPane is a scrollable page of text the Store opens over its list:
// an object described, a container's logs. Its text arrives in messages
// from commands; drawing only reads what it holds.
type textPane struct {
	title string // what it shows: "describe pods/web-0 -n shop"
	note  string // dim, after the title: "reading…", "following"
	vp    viewport.Model
	lines []string
	// follow keeps the end in view as lines arrive, until the user
	// scrolls up; G (bottom) follows again.
	follow bool
}

func newTextPane(c *common, title, note string) *textPane {
	vp := viewport.New()
	k := c.keys
	vp.KeyMap = viewport.KeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown}
	p := &textPane{title: title, note: note, vp: vp}
	p.setSize(c.width, c.height-1)
	return p
}

func (p *textPane) setSize(w, h int) {
	p.vp.SetWidth(w)
	p.vp.SetHeight(max(h, 1))
}

// setText replaces the text; every line is made safe for the terminal.
func (p *textPane) setText(text string) {
	p.lines = strings.Split(strings.TrimRight(safeLines(strings.ReplaceAll(text, "\t", "    ")), "\n"), "\n")
	y := p.vp.YOffset()
	p.vp.SetContentLines(p.lines)
	p.vp.SetYOffset(y)
}

// appendLines adds lines at the end, keeping at most max of them.
func (p *textPane) appendLines(lines []string, max int) {
	p.lines = append(p.lines, lines...)
	if over := len(p.lines) - max; over > 0 {
		p.lines = append(p.lines[:0:0], p.lines[over:]...)
	}
	y := p.vp.YOffset()
	p.vp.SetContentLines(p.lines)
	if p.follow {
		p.vp.GotoBottom()
	} else {
		p.vp.SetYOffset(y)
	}
}

func (p *textPane) update(km tea.KeyPressMsg, c *common) tea.Cmd {
	switch {
	case key.Matches(km, c.keys.Top):
		p.vp.GotoTop()
		p.follow = false
		return nil
	case key.Matches(km, c.keys.Bottom):
		p.vp.GotoBottom()
		p.follow = true
		return nil
	case key.Matches(km, c.keys.Up, c.keys.PageUp):
		p.follow = false
	}
	var cmd tea.Cmd
	p.vp, cmd = p.vp.Update(km)
	if p.vp.AtBottom() && key.Matches(km, c.keys.Down, c.keys.PageDown) {
		p.follow = true
	}
	return cmd
}

func (p *textPane) render(c *common) string {
	st := c.styles
	title := st.bold.Render(p.title)
	if p.note != "" {
		title += st.dim.Render(" · " + p.note)
	}
	return fit(truncate(title, c.width)+"\n"+p.vp.View(), c.width, c.height)
}
