package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// styles are the few looks the dashboard uses. Colours are the terminal's
// own 16 ANSI colours so the user's theme decides the palette, and nothing
// carries meaning by colour alone: warnings also get a ⚠ or a word, the
// selection is reverse video. Bubble Tea downsamples or strips the colours
// for the terminal's profile, which is how NO_COLOR is honoured.
type styles struct {
	title    lipgloss.Style // product name in the header
	bold     lipgloss.Style
	dim      lipgloss.Style // secondary text: labels, separators, arrows
	ok       lipgloss.Style
	warn     lipgloss.Style // stalled listeners, paused engine
	bad      lipgloss.Style // errors, watch down, unsynced
	selected lipgloss.Style // the cursor row
	colHead  lipgloss.Style // table column titles
	stage    lipgloss.Style // pipeline stage names
	accent   lipgloss.Style // filter prompts, active view tab
	panel    lipgloss.Style // bordered overlays: help, switcher, narration
	help     help.Styles
	// mono is set when the terminal shows no attributes (TERM=dumb, no
	// colour profile): reverse video is lost there, so the selection is
	// marked with a ">" gutter instead.
	mono bool
}

func newStyles() styles {
	dim := lipgloss.NewStyle().Faint(true)
	s := styles{
		title:    lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Cyan),
		bold:     lipgloss.NewStyle().Bold(true),
		dim:      dim,
		ok:       lipgloss.NewStyle().Foreground(lipgloss.Green),
		warn:     lipgloss.NewStyle().Foreground(lipgloss.Yellow).Bold(true),
		bad:      lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true),
		selected: lipgloss.NewStyle().Reverse(true),
		colHead:  lipgloss.NewStyle().Bold(true).Underline(true),
		stage:    lipgloss.NewStyle().Bold(true),
		accent:   lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		panel:    lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
	}
	s.help = help.Styles{
		Ellipsis:       dim,
		ShortKey:       lipgloss.NewStyle().Bold(true),
		ShortDesc:      dim,
		ShortSeparator: dim,
		FullKey:        lipgloss.NewStyle().Bold(true),
		FullDesc:       lipgloss.NewStyle(),
		FullSeparator:  dim,
	}
	return s
}

// cursorRow marks the row under the cursor across the full width, so the
// selection reads as a bar even without colour.
func (s styles) cursorRow(line string, w int) string {
	if s.mono {
		return pad(gutter(line), w, false)
	}
	return s.selected.Render(pad(line, w, false))
}

// selectedItem marks a selected entry of a list (switcher, index levels).
func (s styles) selectedItem(line string) string {
	if s.mono {
		return gutter(line)
	}
	return s.selected.Render(line)
}

// gutter puts ">" in the first cell of line: over a leading blank when
// there is one, else before the text.
func gutter(line string) string {
	if strings.HasPrefix(line, " ") {
		return ">" + line[1:]
	}
	return "> " + line
}
