package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/source"

	tea "charm.land/bubbletea/v2"
)

// Compare mode: informers that watch the same resource (e.g. one over a
// DeltaFIFO, one over a RealFIFO) are drawn in columns, so the same
// workload can be seen through both queues at the same moment.
const (
	// compareMinWidth is the narrowest terminal that shows columns; below
	// it each column would be too cramped to read.
	compareMinWidth = 120
	// compareColumnMin is the narrowest column; it decides how many
	// informers fit next to each other.
	compareColumnMin = 58
	compareGap       = " │ "
)

// peers returns every informer watching the current informer's resource,
// in source order, when there are at least two; nil otherwise. The slice
// points into c.data.snaps and is valid until the next tick.
func (c *common) peers() []*source.Informer {
	cur := c.data.snap()
	if cur == nil || cur.Resource == "" || c.caps.fleet {
		// A fleet's informers of one resource are other processes', and
		// its series hold none of the flows a comparison sets side by
		// side.
		return nil
	}
	var out []*source.Informer
	for i := range c.data.snaps {
		if c.data.snaps[i].Resource == cur.Resource {
			out = append(out, &c.data.snaps[i])
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// byName returns the named informer's snapshot, nil if the source has none.
func (d *dataState) byName(name string) *source.Informer {
	for i := range d.snaps {
		if d.snaps[i].Name == name {
			return &d.snaps[i]
		}
	}
	return nil
}

// nowOf is the time of s, for ages within it; c.now() if it has none.
func (c *common) nowOf(s *source.Informer) time.Time {
	if !s.Taken.IsZero() {
		return s.Taken
	}
	return c.now()
}

// comparing reports whether the Pipeline and Queue views draw columns now:
// compare mode is on, there is something to compare and room for it.
func (c *common) comparing() bool {
	return c.compare && c.width >= compareMinWidth && c.peers() != nil
}

// compared returns the peers drawn as columns: as many as fit, chosen by
// pickCompared (what the narration names first), in source order so
// columns do not swap places when the user switches informer.
func (c *common) compared() []*source.Informer {
	fitN := max((c.width+width(compareGap))/(compareColumnMin+width(compareGap)), 2)
	return c.pickCompared(c.peers(), fitN)
}

// compareHint is the line a single view ends with when the current
// informer has peers but they are not drawn side by side; "" otherwise.
func compareHint(c *common) string {
	ps := c.peers()
	if ps == nil || c.comparing() {
		return ""
	}
	var others []string
	for _, s := range ps {
		if s.Name != c.data.current {
			others = append(others, s.Name)
		}
	}
	msg := fmt.Sprintf("▸ also on %s: %s · ", ps[0].Resource, strings.Join(others, ", "))
	keyName := c.keys.Compare.Help().Key
	switch {
	case c.compare:
		msg += fmt.Sprintf("%d+ columns show them side by side", compareMinWidth)
	case keyName != "":
		msg += keyName + " shows them side by side"
	default:
		msg += "compare mode shows them side by side"
	}
	return c.styles.dim.Render(msg)
}

// columnWidths splits total cells into n columns separated by the gap;
// the last column takes the remainder.
func columnWidths(total, n int) []int {
	if n <= 0 {
		return nil
	}
	gap := width(compareGap)
	each := max((total-gap*(n-1))/n, 1)
	out := make([]int, n)
	for i := range out {
		out[i] = each
	}
	out[n-1] = max(total-gap*(n-1)-each*(n-1), 1)
	return out
}

// joinColumns lays blocks of lines side by side, h lines tall, each block
// cut or padded to its width, with a dim rule between them.
func joinColumns(c *common, blocks [][]string, widths []int, h int) []string {
	gap := c.styles.dim.Render(compareGap)
	out := make([]string, h)
	var b strings.Builder
	for i := 0; i < h; i++ {
		b.Reset()
		for j, blk := range blocks {
			if j > 0 {
				b.WriteString(gap)
			}
			line := ""
			if i < len(blk) {
				line = blk[i]
			}
			b.WriteString(pad(line, widths[j], false))
		}
		out[i] = b.String()
	}
	return out
}

// columnTitle names one compared informer at the top of its column; the
// current informer (the one the other views and the keys act on) is
// marked.
func columnTitle(c *common, s *source.Informer) string {
	st := c.styles
	mark := "  "
	if s.Name == c.data.current {
		mark = st.accent.Render("▸ ")
	}
	synced := st.ok.Render("✓ synced")
	if !s.Synced {
		synced = st.warn.Render("✗ syncing")
	}
	return mark + st.bold.Render(s.Name) + st.dim.Render(" · ") + queueKindText(c, s) + st.dim.Render(" · ") + synced
}

// queueKind is the snapshot's queue kind.
func queueKind(s *source.Informer) source.QueueKind { return s.QueueKind }

// toggleCompare flips compare mode and says what changed; with nothing to
// compare it only explains why.
func (m *Model) toggleCompare() tea.Cmd {
	c := m.c
	ps := c.peers()
	if ps == nil {
		what := "this informer's resource"
		if s := c.data.snap(); s != nil && s.Resource != "" {
			what = s.Resource
		}
		m.setStatus("nothing to compare: no other informer watches "+what, nil)
		return nil
	}
	c.compare = !c.compare
	names := make([]string, len(ps))
	for i, s := range ps {
		names[i] = s.Name
	}
	switch {
	case !c.compare:
		m.setStatus("compare off: only "+c.data.current+" is shown", nil)
	case m.width < compareMinWidth:
		m.setStatus(fmt.Sprintf("compare on: widen the terminal to %d columns to see %s side by side", compareMinWidth, strings.Join(names, " and ")), nil)
	default:
		m.setStatus("compare on: "+strings.Join(names, " │ "), nil)
	}
	m.layout()
	return m.views[m.active].refresh()
}
