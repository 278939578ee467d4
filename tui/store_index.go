package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// indexBrowser walks the informer's indexes: index names, then the values
// of one index, then the keys filed under one value. Each level is read by
// a command (one index value can file every key of a large cache) and
// arrives as an indexItemsMsg.
type indexBrowser struct {
	level   int // 0 names, 1 values, 2 keys
	index   string
	value   string
	items   []string
	loading bool // the current level's read is in flight
	scroll  scroller
	// cursors remembers the cursor of each level so esc returns to the row
	// the user came from.
	cursors [3]int
}

func newIndexBrowser(c *common) (*indexBrowser, tea.Cmd) {
	b := &indexBrowser{}
	return b, b.load(c)
}

// load empties the browser and reads its level in a command.
func (b *indexBrowser) load(c *common) tea.Cmd {
	b.items, b.loading = nil, true
	b.scroll.setLen(0)
	sr := c.src.Store(c.data.current)
	if sr == nil {
		b.loading = false
		return nil
	}
	return b.reloadCmd(c.data.current, sr)
}

// readIndexLevel lists one level of the browser, sorted: the index names,
// the values of index, or the keys filed under index=value.
func readIndexLevel(sr source.StoreReader, level int, index, value string) []string {
	switch level {
	case 0:
		return safeAll(sr.IndexNames())
	case 1:
		return safeAll(sr.IndexValues(index))
	case 2:
		return safeAll(sr.IndexKeys(index, value))
	}
	return nil
}

// indexItemsMsg is a re-read of the level the browser showed when the
// store changed; it is read off the UI goroutine, as one index value can
// file every key of a large cache.
type indexItemsMsg struct {
	informer     string
	level        int
	index, value string
	items        []string
}

func (b *indexBrowser) reloadCmd(informer string, sr source.StoreReader) tea.Cmd {
	level, index, value := b.level, b.index, b.value
	return func() tea.Msg {
		return indexItemsMsg{informer: informer, level: level, index: index, value: value,
			items: readIndexLevel(sr, level, index, value)}
	}
}

// apply takes a read while the browser is still on the level it was read
// for. A re-read keeps the cursor on the same item when it is still
// there; a first read keeps the cursor the navigation set.
func (b *indexBrowser) apply(msg indexItemsMsg) {
	if msg.level != b.level || msg.index != b.index || msg.value != b.value {
		return
	}
	sel := ""
	if !b.loading && b.scroll.cursor < len(b.items) {
		sel = b.items[b.scroll.cursor]
	}
	b.items, b.loading = msg.items, false
	b.scroll.setLen(len(b.items))
	if sel == "" {
		b.scroll.clamp()
		return
	}
	if i := sort.SearchStrings(b.items, sel); i < len(b.items) && b.items[i] == sel {
		b.scroll.cursor = i
		b.scroll.clamp()
	}
}

// update handles a key; it returns the key to open at the last level,
// whether esc left the browser, and the read of a level it moved to.
func (b *indexBrowser) update(km tea.KeyPressMsg, c *common) (open string, leave bool, cmd tea.Cmd) {
	k := c.keys
	switch {
	case key.Matches(km, k.Back):
		if b.level == 0 {
			return "", true, nil
		}
		b.level--
		cmd = b.load(c)
		b.scroll.cursor = b.cursors[b.level]
	case key.Matches(km, k.Open):
		if len(b.items) == 0 {
			return "", false, nil
		}
		sel := b.items[b.scroll.cursor]
		b.cursors[b.level] = b.scroll.cursor
		switch b.level {
		case 0:
			b.index = sel
		case 1:
			b.value = sel
		case 2:
			return sel, false, nil
		}
		b.level++
		cmd = b.load(c)
		b.scroll.cursor = 0
	default:
		b.scroll.handleKey(km, k)
	}
	return "", false, cmd
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
	lines := []string{st.bold.Render(crumb) + st.dim.Render(fmt.Sprintf(" · %s %s · enter open · esc up", humanize.CountShort(len(b.items)), what))}
	b.scroll.setHeight(h - 1)
	switch {
	case b.loading:
		lines = append(lines, st.dim.Render("reading…"))
	case len(b.items) == 0:
		lines = append(lines, st.dim.Render("none"))
	}
	counts := c.snap().Store.Indexes
	lo, hi := b.scroll.window()
	for i := lo; i < hi; i++ {
		line := "  " + b.items[i]
		if b.level == 0 {
			const countW = len("1,000,000 values")
			line = pad(line, max(w-1-countW, 10), false) + " " + pad(humanize.CountShort(counts[b.items[i]])+" values", countW, true)
		}
		line = pad(line, w, false)
		if i == b.scroll.cursor {
			line = st.selectedItem(line)
		}
		lines = append(lines, line)
	}
	return fit(strings.Join(lines, "\n"), w, h)
}
