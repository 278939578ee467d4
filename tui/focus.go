package tui

import (
	"cmp"
	"slices"
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// What the narration points at is drawn first: a note that speaks of an
// informer gets that informer's column (compare mode) or line (one column),
// and a note that speaks of a listener figure gets its column in the
// Listeners view, even where the terminal is too narrow for every one.

// notedInformers are the informers the current notes name, the first
// named first (the scenario's lines come before its status lines). A
// name counts only as a whole word: "quiet" is not named by
// "quiet-no-bookmarks".
func (c *common) notedInformers() []string {
	type mention struct {
		name      string
		line, pos int
	}
	var found []mention
	for _, s := range c.data.snaps {
		for i, n := range c.data.notes {
			if p := wordIndex(n, s.Name); p >= 0 {
				found = append(found, mention{s.Name, i, p})
				break
			}
		}
	}
	slices.SortStableFunc(found, func(a, b mention) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.pos, b.pos))
	})
	out := make([]string, len(found))
	for i, m := range found {
		out[i] = m.name
	}
	return out
}

// wordIndex is where word first stands whole in s (not inside a longer
// name of letters, digits and dashes), -1 if nowhere.
func wordIndex(s, word string) int {
	if word == "" {
		return -1
	}
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(word)
		if (i == 0 || !nameByte(s[i-1])) && (end == len(s) || !nameByte(s[end])) {
			return i
		}
		from = i + 1
	}
	return -1
}

func nameByte(b byte) bool {
	return b == '-' || b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// pickCompared chooses n of the peers for columns: the informer the user
// picked while this note stood, then those the note names, then the
// current one, then the rest around it; returned in source order so
// columns keep their places.
func (c *common) pickCompared(ps []*source.Informer, n int) []*source.Informer {
	if len(ps) <= n {
		return ps
	}
	var want []string
	if c.pinned() {
		want = append(want, c.data.current)
	}
	for _, name := range c.notedInformers() {
		if !slices.Contains(want, name) && slices.ContainsFunc(ps, func(s *source.Informer) bool { return s.Name == name }) {
			want = append(want, name)
		}
	}
	if !slices.Contains(want, c.data.current) {
		want = append(want, c.data.current)
	}
	if len(want) > n {
		want = want[:n]
	}
	cur := slices.IndexFunc(ps, func(s *source.Informer) bool { return s.Name == c.data.current })
	// The rest by distance from the current informer, nearest first.
	for d := 1; len(want) < n && d < len(ps); d++ {
		for _, i := range []int{cur - d, cur + d} {
			if i >= 0 && i < len(ps) && len(want) < n && !slices.Contains(want, ps[i].Name) {
				want = append(want, ps[i].Name)
			}
		}
	}
	var out []*source.Informer
	for _, s := range ps {
		if slices.Contains(want, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// pinned reports the user choosing the current informer while the
// current note stood: then it keeps its column whatever the note names.
func (c *common) pinned() bool {
	return c.data.pickedUnder != "" && len(c.data.notes) > 0 && c.data.notes[0] == c.data.pickedUnder
}

// peerLines are, in a single column, a line for each peer the notes name:
// the figures a note about it points at (its resourceVersion, its watch,
// its lists and relists, its bookmarks), whole figures only, in w cells.
func peerLines(c *common, w int) []string {
	ps := c.peers()
	if ps == nil {
		return nil
	}
	var out []string
	for _, name := range c.notedInformers() {
		s := c.data.byName(name)
		if s == nil || name == c.data.current || s.Resource != ps[0].Resource {
			continue
		}
		out = append(out, peerLine(c, s, w))
	}
	return out
}

func peerLine(c *common, s *source.Informer, w int) string {
	st := c.styles
	r := s.Reflector
	watch := st.ok.Render("watch open")
	if !r.WatchOpen {
		watch = st.warn.Render("watch down")
	}
	relists := humanize.PluralShort(r.Relists, "relist")
	if r.Relists > 0 {
		relists = st.warn.Render(relists)
	}
	parts := []string{"▸ " + s.Name, "RV " + orDash(s.LastSyncResourceVersion), watch, relists,
		humanize.PluralShort(r.WatchBookmarks, "bookmark")}
	if r.Errors > 0 {
		parts = append(parts, st.bad.Render(humanize.PluralShort(r.Errors, "error")))
	}
	parts = append(parts, humanize.PluralShort(r.Lists, "list"))
	return fitParts(st.dim.Render(" · "), w, parts...)
}

// fitParts joins parts with sep, leaving out from the end those that do
// not fit in w cells, so no figure is ever cut; the first part is cut only
// if it alone is too wide.
func fitParts(sep string, w int, parts ...string) string {
	out := ""
	for i, p := range parts {
		if p == "" {
			continue
		}
		next := p
		if out != "" {
			next = out + sep + p
		}
		if width(next) > w {
			if i == 0 {
				return truncate(p, w)
			}
			break
		}
		out = next
	}
	return out
}

// notedColumns are the Listeners view's columns the notes speak of, by a
// phrase they use: such a column stays at any width.
var notedColumns = []struct {
	phrase string
	word   bool // a whole word, as written; else anywhere, in any case
	id     int
}{
	{"TOMB", true, lcTombstones},
	{"tombstone", false, lcTombstones},
	{"DeletedFinalStateUnknown", false, lcTombstones},
	{"MUT", true, lcMutations},
	{"CacheMutation", true, lcMutations},
	{"delivered", false, lcDelivered},
	{"high-water", false, lcHighWater},
	{"synced column", false, lcSynced},
}

// focusColumns raises the columns the notes speak of above every other,
// so they are the last to go.
func (c *common) focusColumns(cols []column) []column {
	text := strings.Join(c.data.notes, "\n")
	lower := strings.ToLower(text)
	var out []column
	for _, col := range cols {
		for _, n := range notedColumns {
			if n.id != col.id {
				continue
			}
			if n.word && wordIndex(text, n.phrase) >= 0 || !n.word && strings.Contains(lower, strings.ToLower(n.phrase)) {
				col.prio = 0
			}
		}
		out = append(out, col)
	}
	return out
}
