package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapText breaks text into lines of at most w cells (10 at least) at
// spaces only: never inside a word, so a command to copy
// ("kubectl logs pods/api-0 -n shop") keeps its names whole, and never
// between a word and the figure after it ("410s 4", "RV 686"), since a
// figure alone at the start of a line reads as belonging to nothing. Only
// a word wider than a whole line is cut, at the line's end.
func wrapText(text string, w int) []string {
	w = max(w, 10)
	glued := labelFigure.ReplaceAllString(text, "$1\u00a0$2")
	var out []string
	for _, para := range strings.Split(glued, "\n") {
		// Split on plain spaces only: the glue is a space to unicode.
		words := strings.FieldsFunc(para, func(r rune) bool { return r == ' ' || r == '\t' })
		out = append(out, wrapWords(words, w)...)
	}
	for i, l := range out {
		out[i] = strings.ReplaceAll(l, "\u00a0", " ")
	}
	return out
}

// wrapWords packs words on lines of at most w cells, one space apart.
func wrapWords(words []string, w int) []string {
	if len(words) == 0 {
		return []string{""}
	}
	var out []string
	var line strings.Builder
	lw := 0
	for _, word := range words {
		ww := width(word)
		if lw > 0 && lw+1+ww <= w {
			line.WriteByte(' ')
			line.WriteString(word)
			lw += 1 + ww
			continue
		}
		if lw > 0 {
			out = append(out, line.String())
			line.Reset()
			lw = 0
		}
		for ww > w {
			out = append(out, ansi.Cut(word, 0, w))
			word = ansi.Cut(word, w, ww)
			ww = width(word)
		}
		line.WriteString(word)
		lw = ww
	}
	return append(out, line.String())
}
