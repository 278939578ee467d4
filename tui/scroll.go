package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// scroller is a cursor over n rows of which height are visible. Views keep
// their rows wherever they like and ask the scroller which window to draw,
// so a 100k-row list costs the same per frame as a 20-row one.
//
// Invariant: 0 <= offset <= cursor < offset+height whenever n > 0.
type scroller struct {
	cursor, offset int
	n, height      int
}

func (s *scroller) setLen(n int) {
	s.n = n
	s.clamp()
}

func (s *scroller) setHeight(h int) {
	s.height = max(h, 1)
	s.clamp()
}

func (s *scroller) move(d int) {
	s.cursor += d
	s.clamp()
}

func (s *scroller) top()    { s.cursor = 0; s.clamp() }
func (s *scroller) bottom() { s.cursor = s.n - 1; s.clamp() }

// atBottom reports whether the cursor is on the last row, so a log view
// can keep following new rows.
func (s *scroller) atBottom() bool { return s.n == 0 || s.cursor == s.n-1 }

func (s *scroller) clamp() {
	if s.height < 1 {
		s.height = 1
	}
	if s.n <= 0 {
		s.cursor, s.offset = 0, 0
		return
	}
	s.cursor = min(max(s.cursor, 0), s.n-1)
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if s.cursor >= s.offset+s.height {
		s.offset = s.cursor - s.height + 1
	}
	// Never leave blank rows at the bottom while rows above are hidden.
	s.offset = max(min(s.offset, s.n-s.height), 0)
}

// window returns the half-open range of rows to draw.
func (s *scroller) window() (lo, hi int) {
	return s.offset, min(s.offset+s.height, s.n)
}

// handleKey moves the cursor for the navigation keys and reports whether
// the key was one of them.
func (s *scroller) handleKey(msg tea.KeyPressMsg, k *keyMap) bool {
	switch {
	case key.Matches(msg, k.Up):
		s.move(-1)
	case key.Matches(msg, k.Down):
		s.move(1)
	case key.Matches(msg, k.PageUp):
		s.move(-s.height)
	case key.Matches(msg, k.PageDown):
		s.move(s.height)
	case key.Matches(msg, k.Top):
		s.top()
	case key.Matches(msg, k.Bottom):
		s.bottom()
	default:
		return false
	}
	return true
}
