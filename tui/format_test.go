package tui

import (
	"strings"
	"testing"
)

func TestFitAndColumns(t *testing.T) {
	if got := fit("abcdef\nxy  \n", 4, 3); got != "abc…\nxy\n" {
		t.Fatalf("fit = %q", got)
	}
	cols := layoutColumns([]column{
		{title: "NAME", width: 6, flex: true, maxw: 10, id: 0},
		{title: "N", width: 3, right: true, id: 1},
		{title: "EXTRA", width: 8, prio: 1, id: 2},
	}, 12)
	if len(cols) != 2 || cols[0].width != 8 {
		t.Fatalf("narrow layout %+v: EXTRA should go, NAME should take the rest", cols)
	}
	if got := renderRow(cols, []string{"web-1", "42", "x"}); got != "web-1     42" {
		t.Fatalf("row = %q", got)
	}
	wide := layoutColumns([]column{{title: "NAME", width: 6, flex: true, maxw: 10}, {title: "N", width: 3, id: 1}}, 40)
	if wide[0].width != 10 {
		t.Fatalf("flex column grew to %d, its limit is 10", wide[0].width)
	}
}

// A wrapped line never starts with a figure torn from its label: "410s 4"
// and "RV 686" move to the next line whole.
func TestWrapTextKeepsLabelsWithTheirFigures(t *testing.T) {
	text := "watch cache (pods): window RV 709–809, 100 of 100 events · terminated 0 · 410s 4"
	for w := 20; w <= len(text); w++ {
		lines := wrapText(text, w)
		for i, l := range lines {
			// A figure may open a line after punctuation ("…809," / "100 of"),
			// never after the word it belongs to.
			if i > 0 && l != "" && l[0] >= '0' && l[0] <= '9' && !afterPunctuation(lines[i-1]) {
				t.Fatalf("at width %d a line starts with a bare figure: %q in %q", w, l, lines)
			}
			if width(l) > w {
				t.Fatalf("at width %d the line %q is wider", w, l)
			}
		}
	}
}

func afterPunctuation(line string) bool {
	for _, p := range []string{",", "·", ":", ";"} {
		if strings.HasSuffix(line, p) {
			return true
		}
	}
	return false
}

// A command to copy is never broken inside a word, at a hyphen least of
// all: "kubectl logs pods/api-0 -n shop" stays whole at 80 columns.
func TestWrapTextNeverBreaksAWord(t *testing.T) {
	text := "logs are read through the API server; to follow them elsewhere run kubectl logs pods/api-0 -n shop -c server --follow"
	for w := 20; w <= 80; w++ {
		lines := wrapText(text, w)
		if got := strings.Join(lines, " "); got != text {
			t.Fatalf("at width %d wrapping changed the words: %q", w, lines)
		}
		for _, l := range lines {
			if width(l) > w {
				t.Fatalf("at width %d the line %q is wider", w, l)
			}
			if strings.HasSuffix(l, "-") || strings.HasSuffix(l, "api") {
				t.Fatalf("at width %d a word is broken: %q", w, lines)
			}
		}
	}
	if got := wrapText("pods/"+strings.Repeat("x", 30), 12); len(got) != 3 || width(got[0]) != 12 {
		t.Fatalf("a word wider than the line is cut at its end: %q", got)
	}
}
