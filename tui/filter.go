package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// filterBox is the "/" prompt the list views share. While editing it
// captures the keyboard; enter keeps the query and returns to the list,
// esc clears it.
type filterBox struct {
	input   textinput.Model
	editing bool
	where   filterWhere
	// parsed caches spec's answer for the query it was parsed from.
	parsed filterSpec
}

func newFilterBox(c *common) filterBox {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "text or regexp · -f fuzzy"
	in.SetVirtualCursor(true)
	st := in.Styles()
	st.Focused.Prompt = c.styles.accent
	st.Blurred.Prompt = c.styles.accent
	st.Cursor.Blink = false // a blinking cursor redraws twice a second for nothing
	in.SetStyles(st)
	return filterBox{input: in}
}

func (f *filterBox) start() tea.Cmd {
	f.editing = true
	return f.input.Focus()
}

// update feeds one key to the prompt and reports whether the query changed.
func (f *filterBox) update(msg tea.KeyPressMsg, k *keyMap) (changed bool, cmd tea.Cmd) {
	before := f.query()
	switch {
	case key.Matches(msg, k.Back):
		f.input.Reset()
		f.stop()
	case key.Matches(msg, k.Open):
		f.stop()
	default:
		f.input, cmd = f.input.Update(msg)
	}
	return f.query() != before, cmd
}

// paste inserts pasted text while editing and reports whether the query
// changed.
func (f *filterBox) paste(msg tea.PasteMsg) (changed bool, cmd tea.Cmd) {
	if !f.editing {
		return false, nil
	}
	before := f.query()
	f.input, cmd = f.input.Update(msg)
	return f.query() != before, cmd
}

// clear drops the query without editing; used by esc in the list.
func (f *filterBox) clear() bool {
	had := f.query() != ""
	f.input.Reset()
	f.stop()
	return had
}

func (f *filterBox) stop() {
	f.editing = false
	f.input.Blur()
}

func (f *filterBox) query() string { return strings.TrimSpace(f.input.Value()) }

// spec is the query parsed for this view.
func (f *filterBox) spec() filterSpec {
	if q := f.query(); q != f.parsed.raw || (q == "" && f.parsed.mode != filterNone) {
		f.parsed = parseFilter(q, f.where)
	}
	return f.parsed
}

// shown says whether the prompt takes a line: while editing or filtering.
func (f *filterBox) shown() bool { return f.editing || f.query() != "" }

// view renders the prompt line with the match count.
func (f *filterBox) view(c *common, w int, matches, total int) string {
	spec := f.spec()
	suffix := c.styles.dim.Render("  " + humanize.CountShort(matches) + " of " + humanize.CountShort(total))
	if d := spec.describe(); d != "" && spec.err == "" {
		suffix += c.styles.dim.Render(" · " + d)
	}
	if spec.err != "" {
		// The reason is said in full where the rows would be, wrapped:
		// here it would be cut at 80 columns and said twice.
		short, _, _ := strings.Cut(spec.err, ":")
		suffix = "  " + c.styles.bad.Render(short+" (see below)")
	}
	// As wide as the text, so the count sits next to the query.
	text := width(f.input.Value()) + 1
	if f.input.Value() == "" {
		text = width(f.input.Placeholder) + 1
	}
	// The query keeps at least half the line, scrolling under the cursor
	// past that; the count and the mode give way, cut at the right.
	f.input.SetWidth(max(min(text, w-width(suffix)-2), min(text, w/2)))
	return truncate(f.input.View()+suffix, w)
}
