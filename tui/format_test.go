package tui

import "testing"

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
