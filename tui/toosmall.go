package tui

import (
	"fmt"

	"charm.land/lipgloss/v2"
)

// The smallest terminal the dashboard draws in; below it every view would
// be cut to the point of misleading, so we say so instead.
const (
	minWidth  = 60
	minHeight = 16
)

func tooSmall(w, h int) bool { return w < minWidth || h < minHeight }

// renderTooSmall tells the user what size is needed, centred when it fits.
func renderTooSmall(c *common, w, h int) string {
	msg := fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", minWidth, minHeight, w, h)
	hint := "enlarge the window, or press q to quit"
	body := c.styles.warn.Render(msg) + "\n" + c.styles.dim.Render(hint)
	if lipgloss.Width(body) > w {
		// Wrap rather than cut: the sizes are the point of the message.
		return fit(lipgloss.NewStyle().Width(w).Render(msg+" "+hint), w, h)
	}
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, body)
}
