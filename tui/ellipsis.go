package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// middleEllipsis fits a name into w cells by cutting its middle, not its
// end: listeners of one controller share their start ("controller-runtime
// · configmaps", "github.com/org/repo/…") and differ at the end (" #2", the
// method or test's name), so truncate's cut at the end would make them
// read alike. A Go package path first loses its middle directories
// ("github.com/…/agent_test.F"); what is still too wide keeps a third of
// its cells for its start and the rest for its end.
func middleEllipsis(s string, w int) string {
	if width(s) <= w {
		return s
	}
	if w <= 2 {
		return truncate(s, w)
	}
	prefix, rest := "", s
	if first, last := strings.IndexByte(s, '/'), strings.LastIndexByte(s, '/'); first >= 0 && last > first {
		// Keep the path's start only when it leaves the end at least
		// half the room: the end is what tells names apart.
		if p := s[:first+1] + "…/"; width(p) <= w/2 {
			prefix, rest = p, s[last+1:]
			if width(prefix)+width(rest) <= w {
				return prefix + rest
			}
		}
	}
	return prefix + cutMiddle(rest, w-width(prefix))
}

// cutMiddle is s in at most w cells (w ≥ 3): its start, "…", its end.
func cutMiddle(s string, w int) string {
	room := w - 1 // the ellipsis takes one cell
	headW := max(room/3, 1)
	tailW := room - headW
	head := ansi.Truncate(s, headW, "")
	total := width(s)
	// A wide rune astride the cut would make the end one cell too wide:
	// drop it.
	tail := ansi.TruncateLeft(s, total-tailW, "")
	for n := total - tailW + 1; width(tail) > tailW && n <= total; n++ {
		tail = ansi.TruncateLeft(s, n, "")
	}
	return head + "…" + tail
}
