package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// indexBrowser walks the informer's indexes: index names, then the values
// of one index, then the keys filed under one value.
type indexBrowser struct {
	level  int // 0 names, 1 values, 2 keys
	index  string
	value  string
	items  []string
	scroll scroller
	// cursors remembers the cursor of each level so esc returns to the row
	// the user came from.
	cursors [3]int
}

func newIndexBrowser(c *common) *indexBrowser {
	b := &indexBrowser{}
	b.load(c)
	return b
}

func (b *indexBrowser) load(c *common) {
	sr := c.src.Store(c.data.current)
	b.items = nil
	if sr != nil {
		switch b.level {
		case 0:
			b.items = sr.IndexNames()
		case 1:
			b.items = sr.IndexValues(b.index)
		case 2:
			b.items = sr.IndexKeys(b.index, b.value)
		}
	}
	b.scroll.setLen(len(b.items))
}

// update handles a key; it returns the key to open at the last level, and
// whether esc left the browser.
func (b *indexBrowser) update(km tea.KeyPressMsg, c *common) (open string, leave bool) {
	k := c.keys
	switch {
	case key.Matches(km, k.Back):
		if b.level == 0 {
			return "", true
		}
		b.level--
		b.load(c)
		b.scroll.cursor = b.cursors[b.level]
		b.scroll.clamp()
	case key.Matches(km, k.Open):
		if len(b.items) == 0 {
			return "", false
		}
		sel := b.items[b.scroll.cursor]
		b.cursors[b.level] = b.scroll.cursor
		switch b.level {
		case 0:
			b.index = sel
		case 1:
			b.value = sel
		case 2:
			return sel, false
		}
		b.level++
		b.scroll.cursor = 0
		b.load(c)
	default:
		b.scroll.handleKey(km, k)
	}
	return "", false
}

func (b *indexBrowser) render(c *common, w, h int) string {
	st := c.styles
	crumb := "indexes"
	switch b.level {
	case 1:
		crumb += " › " + b.index
	case 2:
		crumb += " › " + b.index + " › " + b.value
	}
	what := [3]string{"indexes", "values", "keys"}[b.level]
	lines := []string{st.bold.Render(crumb) + st.dim.Render(fmt.Sprintf(" · %s %s · enter open · esc up", count(len(b.items)), what))}
	b.scroll.setHeight(h - 1)
	if len(b.items) == 0 {
		lines = append(lines, st.dim.Render("none"))
	}
	counts := c.snap().Store.Indexes
	lo, hi := b.scroll.window()
	for i := lo; i < hi; i++ {
		line := "  " + b.items[i]
		if b.level == 0 {
			line = pad(line, max(w-16, 10), false) + fmt.Sprintf("%10s values", count(counts[b.items[i]]))
		}
		line = pad(line, w, false)
		if i == b.scroll.cursor {
			line = st.selected.Render(line)
		}
		lines = append(lines, line)
	}
	return fit(strings.Join(lines, "\n"), w, h)
}
